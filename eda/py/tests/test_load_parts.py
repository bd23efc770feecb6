"""The loader's parse of large delimited files in parts, by forked worker processes
(load_parts.py): the same table, types, notes and kept codes as one reading, on small files
cut into several parts; one reading wherever the parts would differ from it."""
import logging
import os
import shutil
import tempfile
import unittest

import numpy as np
import pandas as pd

import stage

WHOLE = stage.loader()  # small files are read in one part
WHOLE["part_count"] = lambda path, encoding: 1
PARTS = stage.run(*[("load_parts.py", {"PARTS_MIN_BYTES": 0}) if f == "load_parts.py" else f
                    for f in stage.LOADER_FILES])
CUTS = 5  # parts per file here, whatever the cores: each file below is cut into this many
counted = PARTS["part_count"]
PARTS["part_count"] = lambda path, encoding: CUTS if counted(path, encoding) > 1 else 1
in_parts = PARTS["read_in_parts"]
READINGS = []  # whether each reading in parts was kept (else the file was read in one part)
PARTS["read_in_parts"] = lambda *a: READINGS.append(in_parts(*a)) or READINGS[-1]


def rows(n, row):
    return "".join(row(i) for i in range(n))


# name: the file's text, and whether the reading in parts is kept (else one reading, for the reason named)
FILES = {
    "numbers and text": (
        "id,city,price,when\n" + rows(200, lambda i: f"{i},{'Berlin' if i % 3 else 'Köln'},{i * 1.5},2024-01-{i % 28 + 1:02d}\n"),
        True),
    "text with missing values and markers": (
        "id,city,grade\n" + rows(200, lambda i: f"{i},{['Paris', '', 'Oslo', 'n/a'][i % 4]},{'ABC'[i % 3] if i > 90 else ''}\n"),
        True),
    "whole numbers in some parts, fractions in others": (
        "a,b\n" + rows(200, lambda i: f"{i},{i if i < 150 else i + 0.25}\n"), True),
    "a text column empty in some parts": ("a,b\n" + rows(200, lambda i: f"{i},{'x' if i < 20 else ''}\n"), True),
    "a number column empty in some parts": ("a,b\n" + rows(200, lambda i: f"{i},{i if i > 150 else ''}\n"), True),
    "quoted fields over several lines": (
        "id,note,n\n" + rows(200, lambda i: f'{i},"line one\nline ""two"", {i}\nthree",{i}\n'), True),
    "no header": (rows(200, lambda i: f"{i},{i * 2},{i * 3}\n"), True),
    "title rows above the header": ("Sales report\n\nid,n\n" + rows(200, lambda i: f"{i},{i % 7}\n"), True),
    "codes with leading zeros": ("zip,n\n" + rows(200, lambda i: f"{i % 50:05d},{i}\n"), True),
    "numbers early, text late (one reading makes them text)": (
        "a,b\n" + rows(200, lambda i: f"{i},{i if i < 190 else 'x'}\n"), False),
    "true and false, missing in one part only": (
        "a,b\n" + rows(200, lambda i: f"{i},{'' if i == 190 else ['True', 'False'][i % 2]}\n"), False),
    "huge whole numbers in some parts, fractions in others": (
        "a,b\n" + rows(200, lambda i: f"{i},{2**60 + i if i < 150 else i + 0.5}\n"), False),
    "a row with too many fields (pandas warns)": (
        "a,b\n" + rows(200, lambda i: f"{i},{i}" + (",extra\n" if i == 150 else "\n")), False),
    "a quote that does not quote, then quoted lines": (
        'a,b\n1,5\'11" tall\n' + rows(200, lambda i: f'{i},"x\ny {i}"\n'), False),
    "unbalanced quotes": ("a,b\n" + rows(200, lambda i: f'{i},{i}\n') + '1,"2\n', False),
}


def read(loader, path):
    """load_table(path) and the codes kept, or (None, the message of the error it raised, None)."""
    loader["FACTORIZED"].clear()
    try:
        df, info = loader["load_table"](path)
        return df, info, dict(loader["FACTORIZED"])
    except loader["AnalystDataError"] as e:
        return None, str(e), None


class TestReadInParts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        READINGS.clear()

    def path(self, text, encoding="utf-8"):
        path = os.path.join(self.dir, "data.csv")
        with open(path, "wb") as f:
            f.write(text.encode(encoding))
        return path

    def assertSameReading(self, path):
        want, want_info, want_codes = read(WHOLE, path)
        got, got_info, got_codes = read(PARTS, path)
        if want is None:  # the same error
            self.assertEqual(got_info, want_info)
            return
        self.assertTrue(got.equals(want), f"{got.head()}\n{want.head()}")
        self.assertEqual(list(got.dtypes), list(want.dtypes))
        self.assertEqual(got_info, want_info)
        self.assertEqual(sorted(got_codes), sorted(want_codes))
        for name, (_, codes, uniques, counts) in want_codes.items():
            kept = PARTS["kept_factorization"](got[name])
            self.assertIsNotNone(kept, name)
            self.assertEqual(kept[0].dtype, codes.dtype)
            np.testing.assert_array_equal(kept[0], codes)
            self.assertEqual(list(kept[1]), list(uniques))
            np.testing.assert_array_equal(kept[2], counts)

    def test_same_table_as_one_reading(self):
        for name, (text, kept) in FILES.items():
            with self.subTest(file=name):
                READINGS.clear()
                self.assertSameReading(self.path(text))
                self.assertTrue(READINGS)
                self.assertEqual(READINGS[0] is not None, kept)

    def test_latin1(self):
        path = self.path("name,n\n" + rows(200, lambda i: f"Müller {i % 9},{i}\n"), "latin-1")
        self.assertSameReading(path)
        self.assertIsNotNone(READINGS[-1])
        got, _ = PARTS["load_table"](path)
        self.assertEqual(np.asarray(got["name"])[5], "Müller 5")

    def test_one_reading_for_small_files_and_other_encodings(self):
        path = self.path(FILES["numbers and text"][0])
        self.assertEqual(WHOLE["part_count"](path, "utf-8"), 1)
        self.assertEqual(counted(path, "utf-16"), 1)
        self.assertEqual(counted(path, "cp1252"), 1)
        self.assertEqual(counted(path, "utf-8"), min(PARTS["PARTS_MAX"], len(os.sched_getaffinity(0))))
        self.assertEqual(stage.loader()["part_count"](path, "utf-8"), 1)  # under PARTS_MIN_BYTES

    def test_cuts_outside_quotes(self):
        path = self.path(FILES["quoted fields over several lines"][0])
        with open(path, "rb") as f:
            text = f.read()
        ends = PARTS["part_ends"](path, 10)
        self.assertGreater(len(ends), 5)
        self.assertEqual(ends[-1], len(text))
        for end in ends:
            self.assertEqual(text[:end].count(b'"') % 2, 0)
            self.assertEqual(text[end - 1:end], b"\n")

    def test_progress_names_the_parts(self):
        logged = []
        handler = logging.Handler()
        handler.emit = lambda record: logged.append(record.getMessage())
        log = PARTS["progress_log"]
        log.addHandler(handler)
        self.addCleanup(log.removeHandler, handler)
        self.addCleanup(log.setLevel, log.level)
        log.setLevel(logging.INFO)
        size = os.path.getsize(self.path(FILES["numbers and text"][0]))
        PARTS["load_table"](os.path.join(self.dir, "data.csv"))
        converted = [m for m in logged if m.startswith("converted ")]
        self.assertEqual(len(converted), CUTS, logged)
        self.assertIn(f"{size:,} of {size:,} bytes into columns (100%; part {CUTS} of {CUTS}", converted[-1])

    def test_merged_text_codes(self):
        parts = [("codes", np.array([0, -1, 1, 0], dtype=np.int32), np.array(["b", "a"], dtype=object)),
                 ("values", np.full(2, np.nan)),
                 ("codes", np.array([1, 0, -1], dtype=np.int32), np.array(["a", "c"], dtype=object))]
        values, (codes, uniques) = PARTS["merged_column"](parts)
        whole = pd.Series(["b", None, "a", "b", None, None, "c", "a", None], dtype=object)
        want_codes, want_uniques = pd.factorize(whole)
        np.testing.assert_array_equal(codes, want_codes)
        self.assertEqual(list(uniques), list(want_uniques))
        self.assertTrue(pd.Series(values, dtype=object).equals(whole.where(whole.notna(), np.nan)))
        self.assertIsNone(PARTS["merged_column"]([parts[0], ("values", np.arange(3.0))]))


if __name__ == "__main__":
    unittest.main()
