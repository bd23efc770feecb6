"""The loader's sniffing and cleaning rules (load.py), each inference beside its counter-case.

The loader engineer's corpus tests sit beside these in test_load_corpus.py."""
import os
import shutil
import tempfile
import unittest

import numpy as np
import pandas as pd

import stage

L = stage.loader()
AnalystDataError = L["AnalystDataError"]


class LoadCase(unittest.TestCase):
    """Writes files to a temporary folder and reads them with load_table."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, content, name="data.csv"):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    def load(self, content, name="data.csv"):
        return L["load_table"](self.write(content, name))


class TestColumnNameWords(unittest.TestCase):
    def test_name_words(self):
        for name, want in [("customer_id", ["customer", "id"]), ("ZipCode", ["zip", "code"]),
                           ("Postal code", ["postal", "code"]), ("HTTPStatus", ["http", "status"]),
                           ("order_no2", ["order", "no"]), ("", []), (42, [])]:
            with self.subTest(name=name):
                self.assertEqual(L["name_words"](name), want)

    def test_code_word(self):
        for name, want in [("customer_id", "id"), ("ZipCode", "code"), ("phone", "phone"),
                           ("account_number", "number"), ("order_no", "no"),
                           ("number", None), ("account_balance", None), ("phone_calls", None),
                           ("num_orders", None), ("amount", None)]:
            with self.subTest(name=name):
                self.assertEqual(L["code_word"](name), want)

    def test_padded_code(self):
        for name, want in [("zip_code", True), ("PLZ", True), ("postal code", True), ("fips", True),
                           ("customer_id", False), ("zip_count", False), ("phone", False)]:
            with self.subTest(name=name):
                self.assertEqual(L["padded_code"](name), want)


class TestSniffing(unittest.TestCase):
    def test_delimiter(self):
        for text, prefer_tab, want in [
            ("a,b,c\n1,2,3\n4,5,6\n", False, ","),
            ("a;b;c\n1,5;2,5;3\n4;5;6\n", False, ";"),
            ("a\tb\n1\t2\n", False, "\t"),
            ("a|b|c\n1|2|3\n", False, "|"),
            ("a,b\n1,2\n", True, ","),
            ('"x;y",b\n"1;2",3\n', False, ","),  # quoted delimiters do not count
            ("only\none\ncolumn\n", False, ","),  # no candidate: one column
        ]:
            with self.subTest(text=text):
                self.assertEqual(L["sniff_dialect"](text, prefer_tab)[0], want)

    def test_tab_preferred_on_a_tie(self):
        text = "a\tb,c\n1\t2,3\n"  # tab and comma both split into 2 fields
        self.assertEqual(L["sniff_dialect"](text, True)[0], "\t")
        self.assertEqual(L["sniff_dialect"](text, False)[0], ",")

    def test_decimal(self):
        for rows, want in [
            ([["h"], ["3,5"], ["1,25"]], (",", None)),
            ([["h"], ["1.234,5"], ["2,5"]], (",", ".")),
            ([["h"], ["3.5"], ["1.25"]], (".", None)),
            ([["h"], ["3,5"], ["1.5"]], (",", None)),  # a tie goes to the comma
            ([["h"], ["3,5"], ["1.5"], ["2.5"]], (".", None)),
            ([["3,5"]], (".", None)),  # the header row is not counted
            ([["h"], ["1,234,567"]], (".", None)),  # groups of three: not a decimal comma
        ]:
            with self.subTest(rows=rows):
                self.assertEqual(L["sniff_decimal"](rows), want)

    def test_is_number(self):
        for text, want in [("3", True), ("3.5", True), ("3,5", True), ("-1e3", True), ("abc", False), ("", False),
                           ("1.2.3", False)]:
            with self.subTest(text=text):
                self.assertEqual(L["is_number"](text), want)

    def test_row_width(self):
        for fields, want in [(["a", "b", ""], 2), (["Title", "", "", ""], 1), (["", ""], 0), ([], 0), (["", "x"], 2)]:
            with self.subTest(fields=fields):
                self.assertEqual(L["row_width"](fields), want)

    def test_format_from_extension_and_content(self):
        for name, head, want in [
            ("x.csv", b"a,b\n1,2\n", "csv"),
            ("x.txt", b"a\tb\n", "csv"),
            ("x.jsonl", b'{"a": 1}\n', "jsonl"),
            ("x.ndjson", b'{"a": 1}\n', "jsonl"),
            ("x.json", b'[{"a": 1}]', "json"),
            ("x.json", b'{"a": 1}\n{"a": 2}\n', "jsonl"),  # one object a line, whatever the name
            ("x", b'[{"a": 1}]', "json"),
            ("x.csv", b'[{"a": 1}]', "csv"),  # a .csv stays CSV
            ("x.csv.gz", b"a,b\n", "csv"),
            ("x.xlsx", b"PK\x03\x04xl/", "xlsx"),
        ]:
            with self.subTest(name=name, head=head):
                self.assertEqual(L["detect_format"](name, head), want)

    def test_format_refused(self):
        for name, head, said in [
            ("x.csv", b"%PDF-1.4", "PDF"),
            ("x.csv", b"\x89PNG\r\n", "PNG"),
            ("x.zip", b"PK\x03\x04abc", "zip archive"),
            ("x.xlsx", b"a,b\n", "not one"),
        ]:
            with self.subTest(name=name):
                with self.assertRaisesRegex(AnalystDataError, said):
                    L["detect_format"](name, head)

    def test_encoding(self):
        for head, want, note in [
            (b"a,b\n1,2\n", ("utf-8", False), None),
            (b"\xef\xbb\xbfa,b\n", ("utf-8-sig", True), None),
            (b"\xff\xfea\x00", ("utf-16", True), None),
            ("caf\u00e9,\u2019\n".encode("cp1252"), ("cp1252", False), "Windows-1252"),
            ("caf\u00e9\n".encode("latin-1"), ("latin-1", False), "Latin-1"),
        ]:
            with self.subTest(head=head):
                notes = []
                self.assertEqual(L["detect_encoding"](head, notes), want)
                if note:
                    self.assertIn(note, notes[0])
                else:
                    self.assertEqual(notes, [])

    def test_binary_refused(self):
        for head in [b"a,b\x00\x01", bytes(range(1, 9)) * 20]:
            with self.subTest(head=head[:8]):
                with self.assertRaisesRegex(AnalystDataError, "binary"):
                    L["detect_encoding"](head, [])

    def test_skipped_rows_from_pandas_warnings(self):
        reported = "Skipping line 3: expected 2 fields, saw 3\nSkipping line 10: expected 2 fields, saw 4\n"
        self.assertEqual(L["skipped_rows"](reported), [(3, 2, 3), (10, 2, 4)])
        self.assertEqual(L["skipped_rows"]("nothing"), [])

    def test_ragged_rows_note(self):
        note = L["ragged_rows_note"]([(i, 2, 3) for i in range(2, 15)])
        self.assertIn("13 ragged row(s) with more fields than the header (2)", note)
        self.assertTrue(note.endswith("line(s) 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ..."), note)


class TestHeader(unittest.TestCase):
    def test_find_header(self):
        for text, want in [
            ("a,b,c\n1,2,3\n4,5,6\n", 0),
            ("Sales report\n\na,b,c\n1,2,3\n4,5,6\n", 1),
            ("Sales report,,\nQ1 2024,,\na,b,c\n1,2,3\n4,5,6\n", 2),
            ("# exported 2024-01-01\na,b,c\n1,2,3\n4,5,6\n", 1),
        ]:
            with self.subTest(text=text):
                self.assertEqual(L["find_header"](text, ",")[0], want)

    def test_title_line_is_read_as_preamble(self):
        case = LoadCase("setUp")
        case.setUp()
        df, info = case.load("Monthly sales\n\nregion,amount\nnorth,10\nsouth,20\neast,30\n")
        case.doCleanups()
        self.assertEqual(list(df.columns), ["region", "amount"])
        self.assertEqual(df["amount"].tolist(), [10, 20, 30])
        self.assertTrue(any("Monthly sales" in n for n in info["notes"]), info["notes"])


class TestNumbersAsText(unittest.TestCase):
    def numbers(self, values, decimal="."):
        got, rule = L["numbers_from_text"](pd.Series(values, dtype=object), decimal)
        return got.tolist(), rule

    def test_number_match(self):
        for text, ok in [("12", True), ("$1,234.50", True), ("(1,234)", True), ("-5%", True), ("1 234,5 €", True),
                         ("(1,234", False), ("-(5)", False), ("--5", False), ("$5€", False), ("abc", False)]:
            with self.subTest(text=text):
                self.assertEqual(L["number_match"](text) is not None, ok)

    def test_values(self):
        for values, decimal, want in [
            (["1,234.50", "12,500"], ".", [1234.5, 12500.0]),
            (["1.234,50", "12.500"], ",", [1234.5, 12500.0]),
            (["$5", "10 €"], ".", [5.0, 10.0]),
            (["26.7%", "100%"], ".", [0.267, 1.0]),
            (["(1,234)", "-5"], ".", [-1234.0, -5.0]),
            (["\u22125", "+5"], ".", [-5.0, 5.0]),
            (["1'234.5", "2 000"], ".", [1234.5, 2000.0]),
        ]:
            with self.subTest(values=values):
                got, _ = self.numbers(values, decimal)
                np.testing.assert_allclose(got, want)

    def test_not_numbers(self):
        for values in [["abc", "x1"], ["1.2.3.4"], ["12-34"], ["007"], ["0123.5"]]:
            with self.subTest(values=values):
                got, _ = self.numbers(values)
                self.assertTrue(all(np.isnan(got)), got)

    def test_tie_follows_the_files_decimal_mark(self):
        self.assertEqual(self.numbers(["1,189"], ".")[0], [1189.0])
        self.assertEqual(self.numbers(["1,189"], ",")[0], [1.189])

    def test_rule_in_words(self):
        for values, says in [(["1,234.50"], "',' or spaces group thousands"), (["1.234,50"], "',' is the decimal mark"),
                             (["$5"], "currency symbols $ removed"), (["5%"], "divided by 100"),
                             (["(5)"], "in parentheses are negative"), (["5"], "")]:
            with self.subTest(values=values):
                rule = self.numbers(values)[1]
                self.assertIn(says, rule) if says else self.assertEqual(rule, "")

    def test_numbers_as_text_column_converted(self):
        df = pd.DataFrame({"amount": ["$1,200.00", "$300.50", "$12.00", "$7.25", "$10.00"] * 4})
        info = L["new_load_info"]()
        L["convert_number_text"](df, info)
        self.assertTrue(pd.api.types.is_float_dtype(df["amount"]))
        self.assertEqual(df["amount"].iloc[0], 1200.0)
        self.assertIn("amount", info["converted_numbers"])

    def test_mostly_text_column_stays_text(self):
        df = pd.DataFrame({"code": ["A1", "B2", "C3", "D4", "5", "6", "E7", "F8", "G9", "H10"]})
        info = L["new_load_info"]()
        L["convert_number_text"](df, info)
        self.assertEqual(df["code"].dtype, object)
        self.assertNotIn("code", info["converted_numbers"])

    def test_partly_numbers_stay_text(self):
        for values, hinted in [([f"${i}" for i in range(7)] + ["n/a yet", "unknown!", "tbd"], True),
                               ([str(i) for i in range(7)] + ["n/a yet", "unknown!", "tbd"], False),  # mixed_types says so
                               ([f"${i}" for i in range(4)] + ["a", "b", "c", "d", "e", "f"], False)]:
            with self.subTest(values=values[:2]):
                df = pd.DataFrame({"x": values})
                info = L["new_load_info"]()
                L["convert_number_text"](df, info)
                self.assertEqual(df["x"].dtype, object)
                self.assertEqual("x" in info["numbers_as_text"], hinted)


class TestLoadedFiles(LoadCase):
    def test_leading_zero_codes_stay_text(self):
        for content, column, want in [
            ("zip,amount\n02134,1\n10001,2\n00501,3\n", "zip", ["02134", "10001", "00501"]),
            ("customer,amount\n000552,1\n000553,2\n000554,3\n", "customer", ["000552", "000553", "000554"]),
        ]:
            with self.subTest(column=column):
                df, info = self.load(content)
                self.assertEqual(df[column].tolist(), want)

    def test_leading_zero_codes_keep_missing_values_and_spaces(self):
        # Text columns are read by a converter (not dtype=object, which is slow in pandas 2.2):
        # empty and quoted empty fields must still be missing, spaces and markers kept as written
        # for the later rules, with or without a header, and beside a ragged row.
        for content, column, want in [
            ('zip,amount\n02134,1\n,2\n"",3\n 00501 ,4\nNA,5\n', "zip", ["02134", None, None, " 00501 ", None]),
            ("02134,1\n10001,2\n,3\n00501,4\n02135,5\n02136,6\n", "column_1",
             ["02134", "10001", None, "00501", "02135", "02136"]),
            ("zip,amount\n02134,1\n10001,2,extra\n00501,3\n", "zip", ["02134", "00501"]),
        ]:
            with self.subTest(content=content):
                df, _ = self.load(content)
                got = [None if pd.isna(v) else v for v in df[column]]
                self.assertEqual(got, want)
                self.assertTrue(all(isinstance(v, str) for v in df[column].dropna()))

    def test_text_columns_hold_one_string_per_distinct_value(self):
        # As pandas' own reading of text: a converter is given a new string per field, and a
        # column of 3 million codes would hold 3 million objects (out of core, a chunk of them
        # went past a 300 MiB limit).
        content = "zip,amount\n" + "".join(f"{i % 7:05d},{i}\n" for i in range(700))
        df, _ = self.load(content)
        self.assertEqual(len({id(v) for v in df["zip"]}), 7)

    def test_zero_and_fractions_are_numbers(self):
        for content, column, want in [("x,y\n0,1\n0.5,2\n10,3\n", "x", [0.0, 0.5, 10.0]),
                                      ("x,y\n0,1\n1,2\n2,3\n", "x", [0, 1, 2])]:
            with self.subTest(content=content):
                df, _ = self.load(content)
                self.assertTrue(pd.api.types.is_numeric_dtype(df[column]))
                self.assertEqual(df[column].tolist(), want)

    def test_zip_named_column_keeps_zeros_found_past_the_head(self):
        rows = "".join(f"{10001 + i},{i}\n" for i in range(12_000)) + "02134,1\n"  # past the first 64 KB
        for column, want in [("zip_code", "02134"), ("amount_total", 2134)]:
            with self.subTest(column=column):
                df, _ = self.load(f"{column},x\n" + rows)
                self.assertEqual(df[column].iloc[-1], want)

    def test_zip_named_column_without_zeros_is_numbers(self):
        df, _ = self.load("zip_code,amount\n10001,1\n90210,2\n60601,3\n")
        self.assertEqual(df["zip_code"].tolist(), [10001, 90210, 60601])

    def test_date_order_proven_month_first(self):
        df, info = self.load("when,amount\n03/04/2024,1\n12/25/2024,2\n01/02/2024,3\n")
        self.assertTrue(pd.api.types.is_datetime64_any_dtype(df["when"]))
        self.assertEqual(df["when"].iloc[0], pd.Timestamp("2024-03-04"))
        self.assertEqual(df["when"].iloc[1], pd.Timestamp("2024-12-25"))

    def test_date_order_proven_day_first(self):
        df, _ = self.load("when,amount\n03/04/2024,1\n25/12/2024,2\n01/02/2024,3\n")
        self.assertEqual(df["when"].iloc[0], pd.Timestamp("2024-04-03"))
        self.assertEqual(df["when"].iloc[1], pd.Timestamp("2024-12-25"))

    def test_date_order_unproven_is_day_first_with_a_note(self):
        df, info = self.load("when,amount\n03/04/2024,1\n05/06/2024,2\n01/02/2024,3\n")
        self.assertEqual(df["when"].iloc[0], pd.Timestamp("2024-04-03"))
        self.assertIn("when", info["ambiguous_dates"])

    def test_date_order_contradicted_keeps_text(self):
        dates = ["25/12/2024", "12/25/2024"] + [f"0{i}/0{i + 1}/2024" for i in range(1, 9)]
        df, info = self.load("when,amount\n" + "".join(f"{d},{i}\n" for i, d in enumerate(dates)))
        self.assertEqual(df["when"].dtype, object)
        self.assertTrue(info["ambiguous_dates"]["when"]["kept_text"])
        self.assertIn("both orders", info["ambiguous_dates"]["when"]["message"])

    def test_date_order_taken_from_another_column(self):
        df, info = self.load("start,end\n03/04/2024,04/05/2024\n01/02/2024,12/25/2024\n")
        self.assertEqual(df["start"].iloc[0], pd.Timestamp("2024-03-04"))  # end proves month first
        self.assertNotIn("start", info["ambiguous_dates"])

    def test_iso_dates(self):
        for content, want in [("d,x\n2024-01-31,1\n2024-02-01,2\n", pd.Timestamp("2024-01-31")),
                              ("d,x\n2024-01-31 10:00:00,1\n2024-02-01 11:00:00,2\n", pd.Timestamp("2024-01-31 10:00")),
                              ("d,x\n31 Jan 2024,1\n1 Feb 2024,2\n", pd.Timestamp("2024-01-31"))]:
            with self.subTest(content=content):
                df, _ = self.load(content)
                self.assertEqual(df["d"].iloc[0], want)

    def test_zoned_dates_become_utc(self):
        df, _ = self.load("d,x\n2024-01-31T10:00:00+01:00,1\n2024-01-31T10:00:00Z,2\n")
        self.assertEqual(df["d"].iloc[0], pd.Timestamp("2024-01-31 09:00", tz="UTC"))
        self.assertEqual(df["d"].iloc[1], pd.Timestamp("2024-01-31 10:00", tz="UTC"))

    def test_text_that_is_not_dates_stays_text(self):
        df, _ = self.load("d,x\nnorth,1\nsouth,2\n2024-01-01,3\n")
        self.assertEqual(df["d"].dtype, object)

    def test_decimal_comma_beside_dotted_dates(self):
        df, info = self.load("when;amount\n14.12.2024;3,5\n15.12.2024;1.234,5\n16.12.2024;2,25\n")
        self.assertEqual(info["delimiter"], ";")
        self.assertEqual(info["decimal"], ",")
        self.assertEqual(df["when"].iloc[0], pd.Timestamp("2024-12-14"))
        self.assertEqual(df["amount"].tolist(), [3.5, 1234.5, 2.25])

    def test_decimal_point_file(self):
        df, info = self.load("when,amount\n2024-12-14,3.5\n2024-12-15,1234.5\n")
        self.assertEqual(info["decimal"], ".")
        self.assertEqual(df["amount"].tolist(), [3.5, 1234.5])

    def test_totals_row_left_out(self):
        df, info = self.load("region,amount\nnorth,10\nsouth,20\neast,30\nTotal,60\n")
        self.assertEqual(df["region"].tolist(), ["north", "south", "east"])
        self.assertTrue(any("total" in n.lower() for n in info["notes"]), info["notes"])

    def test_totals_labels(self):
        for label in ["Total", "TOTAL:", " Grand Total ", "Summe", "total général"]:
            with self.subTest(label=label):
                df, _ = self.load(f"region,amount\nnorth,10\nsouth,20\neast,30\n{label},60\n")
                self.assertEqual(len(df), 3)

    def test_totals_row_that_is_not_the_sum_stays(self):
        df, info = self.load("region,amount\nnorth,10\nsouth,20\neast,30\nTotal,61\n")
        self.assertEqual(len(df), 4)
        self.assertTrue(any("Total" in n for n in info["notes"]), info["notes"])

    def test_a_region_called_all_is_not_a_total_unless_it_sums(self):
        df, _ = self.load("region,amount\nnorth,10\nsouth,20\neast,30\nall,5\n")
        self.assertEqual(len(df), 4)

    def test_missing_markers(self):
        df, info = self.load("name,amount\nann,1\nNA,2\nbob,n/a\n  ,4\nnull,5\ncid,6\n")
        # "null" has the shape of the names beside it (lower-case letters), so the evidence keeps
        # it as a value and a note says so (issue 35, cause 7); "NA" and the blank do not.
        self.assertEqual(df["name"].isna().tolist(), [False, True, False, True, False, False])
        self.assertTrue(any("'null' in 'name' was kept as a value" in n for n in info["notes"]), info["notes"])
        self.assertTrue(pd.api.types.is_numeric_dtype(df["amount"]))
        self.assertTrue(np.isnan(df["amount"].iloc[2]))
        self.assertIn("name", info["missing_markers"])

    def test_missing_markers_are_whole_values(self):
        df, _ = self.load("name,x\nnana,1\nNAN,2\nnone of them,3\n")
        self.assertEqual(df["name"].tolist()[0], "nana")
        self.assertTrue(pd.isna(df["name"].iloc[1]))
        self.assertEqual(df["name"].iloc[2], "none of them")

    def test_numbers_as_text_in_a_file(self):
        df, info = self.load('item,price\na,"$1,200.00"\nb,"$300.50"\nc,"$12.00"\n')
        self.assertEqual(df["price"].tolist(), [1200.0, 300.5, 12.0])
        self.assertIn("price", info["converted_numbers"])

    def test_ragged_rows_skipped_and_listed(self):
        df, info = self.load("a,b\n1,2\n3,4,5\n6,7\n")
        self.assertEqual(df["a"].tolist(), [1, 6])
        self.assertTrue(any("ragged" in n for n in info["notes"]), info["notes"])

    def test_short_rows_kept_with_missing_fields(self):
        df, _ = self.load("a,b,c\n1,2,3\n4,5\n6,7,8\n")
        self.assertEqual(len(df), 3)
        self.assertTrue(np.isnan(df["c"].iloc[1]))

    def test_unix_times_named_so_become_timestamps(self):
        for column, values, want in [
            ("created_at", [1700000000, 1700000060], pd.Timestamp("2023-11-14 22:13:20", tz="UTC")),
            ("ts", [1700000000000, 1700000060000], pd.Timestamp("2023-11-14 22:13:20", tz="UTC")),
        ]:
            with self.subTest(column=column):
                content = f"{column},x\n" + "".join(f"{v},{i}\n" for i, v in enumerate(values))
                df, _ = self.load(content)
                self.assertEqual(df[column].iloc[0], want)

    def test_unix_times_not_named_so_stay_numbers(self):
        df, _ = self.load("amount,x\n1700000000,1\n1700000060,2\n")
        self.assertTrue(pd.api.types.is_integer_dtype(df["amount"]))

    def test_errors_say_what_to_do(self):
        for content, name, said in [(b"", "data.csv", "empty"), (b"a,b\n", "data.csv", "no data rows"),
                                    (b"%PDF-1.7 xyz", "data.csv", "PDF")]:
            with self.subTest(said=said):
                with self.assertRaisesRegex(AnalystDataError, said):
                    self.load(content, name)
        with self.assertRaisesRegex(AnalystDataError, "does not exist"):
            L["load_table"](os.path.join(self.dir, "missing.csv"))

    def test_json_and_jsonl(self):
        for content, name in [('[{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]', "d.json"),
                              ('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n', "d.jsonl")]:
            with self.subTest(name=name):
                df, info = self.load(content, name)
                self.assertEqual(df["a"].tolist(), [1, 2])
                self.assertEqual(df["b"].tolist(), ["x", "y"])

    def test_gzip_compressed_csv(self):
        import gzip
        df, info = self.load(gzip.compress(b"a,b\n1,2\n3,4\n"), "d.csv.gz")
        self.assertEqual(info["compression"], "gzip")
        self.assertEqual(df["a"].tolist(), [1, 3])

    def test_columns_named_as_text(self):
        df, _ = self.load("1,2\n3,4\n5,6\n")
        self.assertTrue(all(isinstance(c, str) for c in df.columns))


class TestLoadErrors(LoadCase):
    """Files that cannot be read as tables stop with an AnalystDataError that says why (moved from eda's
    TestLoadErrors, which keeps one case to show the error reaches analyst through the kernel)."""

    def test_messages(self):
        rng = np.random.default_rng(1)
        binary = bytearray(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
        binary[10] = 0
        binary = bytes(binary)
        for name, data, want in [
            ("empty.csv", b"", "the file is empty"),
            ("blank.csv", b"\n \n\n", "the file is empty"),
            ("header_only.csv", b"a,b,c\n", "header but no data rows"),
            ("bom_header_only.csv", b"\xef\xbb\xbfa;b\r\n", "header but no data rows"),
            ("binary.csv", binary, "looks binary"),
            ("image.csv", b"\x89PNG\r\n\x1a\n" + binary, "PNG image"),
            ("old.xls", b"\xd0\xcf\x11\xe0" + binary, "old.xls: the spreadsheet could not be read"),
            ("data.parquet", b"PAR1" + binary, "pyarrow"),
            ("archive.csv", b"PK\x03\x04" + binary[:100], "zip archive"),
            ("broken.json", b'[{"a": 1}, {"a": ', "not valid JSON"),
            ("nested.json", b"[" * 100000, "nested too deeply"),  # issue 32 item 13: not a RecursionError
            ("fake.xlsx", b"a,b\n1,2\n", "not one"),
            ("too_long.csv", b"a,b\n1,2,3,4\n5,6,7,8\n", "the first data row has 4 fields"),
        ]:
            with self.subTest(name=name):
                with self.assertRaises(AnalystDataError) as caught:
                    self.load(data, name)
                self.assertIn(want, str(caught.exception))


class TestDates(unittest.TestCase):
    def test_date_format(self):
        for values, want in [
            (["2024-01-31", "2024-02-01"], "%Y-%m-%d"),
            (["31.01.2024", "01.02.2024"], "%d.%m.%Y"),
            (["Jan 31, 2024", "Feb 1, 2024"], "%b %d, %Y"),
            (["2024-01", "2024-02"], "%Y-%m"),
            (["north", "south"], None),
            ([1, 2], None),
        ]:
            with self.subTest(values=values):
                self.assertEqual(L["date_format"](pd.Series(values, dtype=object))[0], want)

    def test_swapped_order(self):
        for fmt, want in [("%d/%m/%Y", "%m/%d/%Y"), ("%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M"), ("%Y-%m-%d", None),
                          ("%d.%m.%Y", None)]:
            with self.subTest(fmt=fmt):
                self.assertEqual(L["swapped_order"](fmt), want)

    def test_order_evidence(self):
        s = pd.Series(["03/04/2024", "12/25/2024", "12/25/2024", "25/12/2024", None], dtype=object)
        found = L["order_evidence"](s)
        self.assertEqual(found["month"], (2, "12/25/2024"))
        self.assertEqual(found["day"], (1, "25/12/2024"))
        none = L["order_evidence"](pd.Series(["03/04/2024", "01/02/2024"], dtype=object))
        self.assertEqual(none, {"day": (0, None), "month": (0, None)})

    def test_epoch_unit(self):
        for values, want in [([1_700_000_000, 1_700_000_001], "s"), ([1_700_000_000_000], "ms"),
                             ([1_700_000_000.5], None), ([5, 6], None), ([True, False], None),
                             ([1_700_000_000, 2_100_000_000], None), ([np.nan], None)]:
            with self.subTest(values=values):
                self.assertEqual(L["epoch_unit"](pd.Series(values)), want)

    def test_totals_label(self):
        for rows, want in [
            ([["a", 1], ["b", 2], ["Total", 3]], (0, "Total")),
            ([["a", 1], ["b", 2], ["grand total:", 3]], (0, "grand total:")),
            ([["a", 1], ["b", 2], ["c", 3]], None),
            ([["a", 1], ["Total", 1]], None),  # fewer than 3 rows: no totals row
        ]:
            with self.subTest(rows=rows):
                self.assertEqual(L["totals_label"](pd.DataFrame(rows)), want)


if __name__ == "__main__":
    unittest.main()
