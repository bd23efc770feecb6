#!/usr/bin/env python3
"""scripts/cellcompare.py NOTEBOOK OUT.py: a script that runs an analyst notebook's cells up to its profile,
then the profile-alerts and sketch-json cells as the notebook has them (old) and as the files of a folder
have them (new), alternating, and prints each one's wall and CPU seconds and whether the two give the same
alerts (with each column's max_correlation) and the same sketch JSON. Put the data file, and in src/ the new
profile_alerts.py, sketch_parts.py, sketch.py, spaced.py (load.py's spaced_sample), MODE ("time", or "prof"
for cProfile of the old cells) and ROUNDS, in one folder DIR, then:
  analyst kernel exec --memory 12GiB --timeout 20m --data DIR OUT.py
(DATA_PATH in the notebook's load cell must be /data/<the data file's base name>.) See docs/benchmarks.md,
issue 36, round 2."""
import json, sys
nb = json.load(open(sys.argv[1]))
cells = {}
pre = []
for c in nb['cells']:
    if c['cell_type'] != 'code':
        continue
    tags = c['metadata'].get('tags', [])
    src = ''.join(c['source'])
    src = '\n'.join(l for l in src.split('\n') if not l.lstrip().startswith('%'))
    name = [t for t in tags if not t.startswith('stage:')]
    name = name[0] if name else None
    if name in ('profile-alerts', 'sketch-json'):
        cells[name] = src
    elif not cells:
        pre.append(src)
out = ['import time, json, copy, cProfile, pstats, io, sys']
for s in pre:
    out.append('exec(compile(%r, "pre", "exec"))' % s)
out.append('OLD = %r' % cells)
out.append(r'''
NEW = {"profile-alerts": open("/data/src/spaced.py").read() + "\n" + open("/data/src/profile_alerts.py").read(),
       "sketch-json": open("/data/src/sketch_parts.py").read() + "\n" + open("/data/src/sketch.py").read()}
_shown = []
_real_display = display
def display(*a, **k):
    _shown.append(a[0])
base_info = copy.deepcopy(column_info)
def run(which, name, prof=False):
    global column_info
    column_info = copy.deepcopy(base_info)
    _shown.clear()
    src = (OLD if which == "old" else NEW)[name]
    pr = cProfile.Profile() if prof else None
    t0, c0 = time.perf_counter(), time.process_time()
    if pr: pr.enable()
    exec(compile(src, name, "exec"), globals())
    if pr: pr.disable()
    t, c = time.perf_counter() - t0, time.process_time() - c0
    if name == "profile-alerts":
        res = json.dumps([alerts, [ci.get("max_correlation") for ci in column_info]])
    else:
        res = json.dumps(_shown[0][SKETCH_MIME])
    if pr:
        s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15); print(s.getvalue())
    return t, c, res
import os
MODE = open("/data/src/MODE").read().strip()
if MODE == "prof":
    for _nm in ("profile-alerts", "sketch-json"):
        print("=====", _nm); run("old", _nm, True)
else:
    rows_ = []
    for _rnd in range(int(open("/data/src/ROUNDS").read().strip())):
        for _nm in ("profile-alerts", "sketch-json"):
            _res = {}
            for _wh in ("old", "new") if _rnd % 2 == 0 else ("new", "old"):
                _t, _c, _r = run(_wh, _nm)
                _res[_wh] = _r
                print(f"{_nm:15s} {_wh} wall {_t:6.2f} cpu {_c:6.2f} load {os.getloadavg()[0]:.1f}", flush=True)
            print(_nm, "IDENTICAL" if _res["old"] == _res["new"] else "DIFFERENT", len(_res["old"]), flush=True)
''')
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
