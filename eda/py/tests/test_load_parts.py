"""The loader's reading of large files in parts on threads (read_in_parts in load.py): the same
table, types and notes as the reading in one part, on files cut into parts of a few hundred bytes."""
import logging
import os
import shutil
import tempfile
import unittest

import numpy as np

import stage

WHOLE = stage.loader()  # large files only are read in parts: these small ones in one
PARTS = stage.run("load_source.py", ("load.py", {"PARTS_MIN_BYTES": 0, "PART_BYTES": 300}), "load_formats.py",
                  "load_exports.py")


def rows(n, row):
    return "".join(row(i) for i in range(n))


# name: the file's text, and whether it is read in parts (else in one, for the reason named)
FILES = {
    "numbers and text": (
        "id,city,price,when\n" + rows(200, lambda i: f"{i},{'Berlin' if i % 3 else 'Köln'},{i * 1.5},2024-01-{i % 28 + 1:02d}\n"),
        True),
    "whole numbers in some parts, fractions in others": (
        "a,b\n" + rows(200, lambda i: f"{i},{i if i < 150 else i + 0.25}\n"), True),
    "a column empty in some parts": ("a,b\n" + rows(200, lambda i: f"{i},{'x' if i < 20 else ''}\n"), True),
    "quoted fields over several lines": (
        "id,note,n\n" + rows(200, lambda i: f'{i},"line one\nline ""two"", {i}\nthree",{i}\n'), True),
    "no header": (rows(200, lambda i: f"{i},{i * 2},{i * 3}\n"), True),
    "numbers early, text late (one part types it text)": (
        "a,b\n" + rows(200, lambda i: f"{i},{i if i < 190 else 'n/a'}\n"), False),
    "a row with too many fields (pandas warns)": (
        "a,b\n" + rows(200, lambda i: f"{i},{i}" + (",extra\n" if i == 150 else "\n")), False),
    "unbalanced quotes": ("a,b\n" + rows(200, lambda i: f'{i},{i}\n') + '1,"2\n', False),
}


def read(loader, path):
    """load_table(path), or (None, the message of the error it raised)."""
    try:
        return loader["load_table"](path)
    except loader["AnalystDataError"] as e:
        return None, str(e)


class TestReadInParts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def path(self, text, encoding="utf-8"):
        path = os.path.join(self.dir, "data.csv")
        with open(path, "wb") as f:
            f.write(text.encode(encoding))
        return path

    def test_same_table_as_one_part(self):
        for name, (text, in_parts) in FILES.items():
            with self.subTest(file=name):
                path = self.path(text)
                want, want_info = read(WHOLE, path)
                got, got_info = read(PARTS, path)
                if want is None:  # the same error
                    self.assertEqual(got_info, want_info)
                    continue
                self.assertTrue(got.equals(want), f"{got.head()}\n{want.head()}")
                self.assertEqual(list(got.dtypes), list(want.dtypes))
                self.assertEqual(got_info, want_info)

    def test_parts_or_one(self):
        for name, (text, in_parts) in FILES.items():
            with self.subTest(file=name):
                path = self.path(text)
                options = dict(sep=",", encoding="utf-8", low_memory=False, keep_default_na=False, na_values=[""])
                no_header = name == "no header"
                read = PARTS["read_in_parts"](path, options, 0, [0, 1, 2] if no_header else None, no_header)
                self.assertEqual(read is not None, in_parts)

    def test_cuts_outside_quotes(self):
        text = FILES["quoted fields over several lines"][0].encode()
        ends = PARTS["part_ends"](text, 10)
        self.assertGreater(len(ends), 5)
        for end in ends:
            self.assertEqual(text[:end].count(b'"') % 2, 0)
            self.assertEqual(text[end - 1:end], b"\n")

    def test_progress_names_the_conversion(self):
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
        self.assertGreater(len(converted), 2, logged)
        self.assertIn(f"{size:,} of {size:,}", converted[-1])

    def test_latin1(self):
        path = self.path("name,n\n" + rows(200, lambda i: f"Müller {i},{i}\n"), "latin-1")
        want, want_info = WHOLE["load_table"](path)
        got, got_info = PARTS["load_table"](path)
        self.assertTrue(got.equals(want))
        self.assertEqual(got_info, want_info)
        self.assertEqual(np.asarray(got["name"])[5], "Müller 5")


if __name__ == "__main__":
    unittest.main()
