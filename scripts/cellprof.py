#!/usr/bin/env python3
"""scripts/cellprof.py NOTEBOOK OUT.py: turn an analyst notebook into a script that runs every code cell
under cProfile and prints wall and CPU seconds per cell, then the top functions of the slow ones.
Run the script in the real kernel:
  analyst kernel exec --memory 12GiB --cell-timeout 20m --data CSV OUT.py
(DATA_PATH in the notebook's load cell must be /data/<the CSV's base name>.)"""
import json, sys
nb = json.load(open(sys.argv[1]))
out = ['import time, cProfile, pstats, io', '_T=[]; _P={}']
for i, c in enumerate(nb['cells']):
    if c['cell_type'] != 'code':
        continue
    tags = c['metadata'].get('tags', [])
    name = [t for t in tags if not t.startswith('stage:')]
    name = name[0] if name else 'cell%d' % i
    src = ''.join(c['source'])
    src = '\n'.join(l for l in src.split('\n') if not l.lstrip().startswith('%'))
    out.append('_pr=cProfile.Profile(); _t0=time.perf_counter(); _c0=time.process_time(); _pr.enable()')
    out.append('exec(compile(%r, %r, "exec"))' % (src, name))
    out.append('_pr.disable(); _T.append((%r, time.perf_counter()-_t0, time.process_time()-_c0))' % name)
    out.append('_s=io.StringIO(); pstats.Stats(_pr,stream=_s).sort_stats("tottime").print_stats(12); _P[%r]=_s.getvalue()' % name)
out.append('print("TOTAL cpu %.2f" % sum(c for _, _, c in _T))')
out.append('for n,w,c in _T: print(f"{n:20s} wall {w:6.2f} cpu {c:6.2f}")')
out.append('for n,w,c in _T:\n    if w>1: print("=====",n); print("\\n".join(_P[n].splitlines()[:34]))')
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
