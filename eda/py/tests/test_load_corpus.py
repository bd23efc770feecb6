"""The loader's inference rules (eda/py/load.py), each tested on the case it exists for and on
its counter-case: the evidence in the file decides, never a default. The cases are the shapes
of files in other projects' reader test corpora (issue 35: DuckDB's CSV tests, TPC-H samples,
IMDb extracts, a voter file), written small here.

Runs with the kernel image's python3 (pandas), beside the other unit tests of eda/py/tests:
    go test ./eda/ -run TestPythonUnitTests
"""
import os
import re
import tempfile
import types
import unittest

import stage

# The loader's functions as a module, its constants at analyst's defaults (stage.loader).
L = types.SimpleNamespace(**stage.loader())
template = stage.source


class LoaderCase(unittest.TestCase):
    def load(self, text, name="data.csv"):
        """load_table of a file holding text (str: UTF-8; bytes as they are)."""
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
        return L.load_table(path)

    def note(self, info, part):
        return next((n for n in info["notes"] if part in n), None)


LINEITEM = ("1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|DELIVER IN PERSON\n"
            "1|67310|7311|2|36|45983.16|0.09|0.06|N|O|1996-04-12|TAKE BACK RETURN\n"
            "1|63700|3701|3|8|13309.60|0.10|0.02|N|O|1996-01-29|TAKE BACK RETURN\n"
            "2|106170|1191|1|38|44694.46|0.00|0.05|N|O|1997-01-28|TAKE BACK RETURN\n")
LINEITEM_HEADER = "orderkey|partkey|suppkey|line|quantity|price|discount|tax|returnflag|status|shipdate|instruct\n"


class HeaderEvidence(LoaderCase):
    """Cause 1: a file without a header row loses no row; one with a header keeps it as names."""

    def test_first_row_data_or_header(self):
        cases = [  # name, text, header expected, rows, first column name
            ("TPC-H lineitem without a header", LINEITEM, False, 4, "column_1"),
            ("the same with a header", LINEITEM_HEADER + LINEITEM, True, 4, "orderkey"),
            ("Greek words between numbers", "1689|00i\\047m|2\n1690|00i\\047v|2\n41561|2015|1\n", False, 3, "column_1"),
            ("names above those numbers", "id|word|n\n1689|00i\\047m|2\n1690|00i\\047v|2\n", True, 2, "id"),
            ("text only, a first-row value recurs", "Berlin,DE,city\nParis,FR,city\nLyon,FR,city\n", False, 3, "column_1"),
            ("text only, names that recur nowhere", "name,country,kind\nBerlin,DE,city\nParis,FR,city\n", True, 2, "name"),
            ("only numbers", "2019,2020\n1,2\n3,4\n", False, 3, "column_1"),
            ("a name above numbers, numbers above text", "id,name\n1,a\n2,b\n", True, 2, "id"),
        ]
        for name, text, header, rows, first in cases:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual((len(df), df.columns[0]), (rows, first))
                self.assertEqual(info["no_header"], not header)
                said = self.note(info, "has no header row")
                self.assertEqual(said is not None, not header, info["notes"])

    def test_one_line_file(self):
        """Cause 12: a file of one line holding a number is a row; one line of names is a header."""
        df, info = self.load("1,2,3\n")
        self.assertEqual((len(df), list(df.columns)), (1, ["column_1", "column_2", "column_3"]))
        self.assertEqual(df.iloc[0].tolist(), [1, 2, 3])
        df, info = self.load("1,StreetA")
        self.assertEqual(df.iloc[0].tolist(), [1, "StreetA"])
        with self.assertRaisesRegex(L.AnalystDataError, "header but no data rows"):
            self.load("a,b,c\n")


class Delimiters(LoaderCase):
    """Cause 2: a tie between delimiters goes to the one whose quoting fits, then the widest."""

    def test_quoted_comma_in_tab_file(self):
        rows = "".join(f'"{i}"\t"DOE, JANE {i}"\t"NC"\t"2787{i}"\n' for i in range(9))
        df, info = self.load(rows)
        self.assertEqual(info["delimiter"], "\t")
        self.assertEqual(df.shape, (9, 4))
        self.assertEqual(df["column_2"].iloc[0], "DOE, JANE 0")

    def test_quoted_tab_in_comma_file(self):
        rows = "id,text,state\n" + "".join(f'{i},"a\tb {i}",NC\n' for i in range(9))
        df, info = self.load(rows)
        self.assertEqual(info["delimiter"], ",")
        self.assertEqual(df.shape, (9, 3))
        self.assertEqual(df["text"].iloc[0], "a\tb 0")

    def test_space_delimited(self):
        """Space is a delimiter when it splits every line alike; a column of sentences is one column."""
        df, info = self.load("x y label\n1 2 a\n3  4 b\n5 6 c\n7 8 d\n")
        self.assertEqual(info["delimiter"], " ")
        self.assertEqual(list(df.columns), ["x", "y", "label"])
        self.assertEqual(df["y"].tolist(), [2, 4, 6, 8])
        df, info = self.load("comment\nthe delivery was late\ngood\nvery good service indeed\n")
        self.assertEqual(df.shape, (3, 1))

    def test_words_with_single_spaces(self):
        """Lines of words with single spaces are values with spaces, not fields (DuckDB's
        small_lineitem_strings.csv, test/5438.csv): a space splits fields when a field is a
        number or a date, or runs of spaces align the columns."""
        cases = [  # name, text, a value (the first line is the header: it recurs nowhere below)
            ("TPC-H ship instructions", "DELIVER IN PERSON\nTAKE BACK RETURN\nNONE AT ALL\n", "TAKE BACK RETURN"),
            ("JSON objects, one a line", '{"duck": 1}\n{"duck": 2}\n{"duck": 3}\n', '{"duck": 2}'),
        ]
        for name, text, value in cases:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual(df.shape, (2, 1))
                self.assertEqual(df.iloc[0, 0], value)
                self.assertNotEqual(info["delimiter"], " ")
        for name, text, shape in [("words aligned by runs of spaces", "NAME   CITY\nann    Oslo\nbob    Rome\n", (2, 2)),
                                  ("words and dates", "2024-01-02 ann x\n2024-01-03 bob y\n2024-01-04 cy z\n", (3, 3))]:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual(df.shape, shape)
                self.assertEqual(info["delimiter"], " ")


class GroupedNumbersInOneColumn(LoaderCase):
    """Lines that are each one number grouped with commas (300,000,000.40), split unevenly by
    the commas, are one column of numbers (DuckDB's thousands_separator/simple.csv); lines the
    commas split evenly are fields."""

    def test_one_column_of_grouped_numbers(self):
        df, info = self.load("100,000.00\n300,000.20\n300,000,000.40\n50\n9999999999.20\n")
        self.assertEqual(df.shape, (5, 1))
        self.assertEqual(df.iloc[:, 0].tolist(), [100000.0, 300000.2, 300000000.4, 50.0, 9999999999.2])
        self.assertNotIn("ragged_rows", info)

    def test_commas_that_split_evenly(self):
        df, info = self.load("1,234\n5,678\n9,012\n3,456\n")
        self.assertEqual(df.shape, (4, 2))
        self.assertEqual(info["delimiter"], ",")


class EscapedQuotes(LoaderCase):
    """Cause 3: quotes escaped with a backslash are read so; a backslash before a doubled-quote
    file's closing quote (a Windows folder) is not an escape."""

    def test_backslash_escaped(self):
        rows = "id,movie,note\n" + "".join(f'{i},{i * 7},"DATE: the \\"round\\" screen, {i}"\n' for i in range(50))
        df, info = self.load(rows)
        self.assertEqual(len(df), 50)
        self.assertEqual(df["note"].iloc[1], 'DATE: the "round" screen, 1')
        self.assertEqual(info["escapechar"], "\\")
        self.assertNotIn("ragged_rows", info)

    def test_backslash_before_closing_quote(self):
        rows = "id,folder,n\n" + "".join(f'{i},"C:\\data\\run{i}\\",{i}\n' for i in range(20))
        df, info = self.load(rows)
        self.assertEqual(len(df), 20)
        self.assertEqual(df["folder"].iloc[3], "C:\\data\\run3\\")
        self.assertIsNone(info["escapechar"])


class RaggedRows(LoaderCase):
    """Never silently drop rows: more than RAGGED_SHARE skipped is an alert naming the cause."""

    def test_many_skipped_is_an_alert(self):
        rows = "a,b\n" + "".join(f"{i},{i}\n" if i % 10 != 5 else f"{i},{i},extra,#{i}\n" for i in range(200))
        df, info = self.load(rows)
        self.assertEqual(len(df), 180)
        self.assertIn("ragged_rows", info)
        self.assertEqual(info["ragged_rows"]["rows"], 20)
        self.assertIn("more fields than the header", info["ragged_rows"]["message"])

    def test_one_stray_row_is_a_note(self):
        rows = "a,b\n" + "".join(f"{i},{i}\n" for i in range(199)) + "x,y,z\n"
        df, info = self.load(rows)
        self.assertEqual(len(df), 199)
        self.assertNotIn("ragged_rows", info)
        self.assertIsNotNone(self.note(info, "1 ragged row(s)"))


    def test_many_cut_short_is_an_alert(self):
        # DuckDB's decimal_separators/mixed_format_fail.csv: a one-column file of decimal commas
        # (12,5) split at the comma; pandas keeps rows as long as the first and drops their extra
        # fields, which lost half of each number with only a note
        df, info = self.load("foo\n12,5\n145,00\n5.25\n")
        self.assertEqual(len(df), 3)
        self.assertIn("ragged_rows", info)
        self.assertIn("extra fields were dropped", info["ragged_rows"]["message"])
        self.assertIn("without quotes", info["ragged_rows"]["cause"])

    def test_one_row_cut_short_is_a_note(self):
        rows = "a,b\n0,0,extra\n" + "".join(f"{i},{i}\n" for i in range(1, 200))
        df, info = self.load(rows)
        self.assertEqual(len(df), 200)
        self.assertNotIn("ragged_rows", info)
        self.assertIsNotNone(self.note(info, "extra fields were dropped"))


class Preamble(LoaderCase):
    """Cause 6: a report preamble as long as a short table leaves the table, not the preamble."""

    def test_short_table_below_preamble(self):
        header = ",".join(f"c{i}" for i in range(20))
        rows = "".join(",".join(str(r * 100 + i) for i in range(20)) + "\n" for r in range(2))
        df, info = self.load("Report,Sales by region\nRun,2024-01-02\nBy,analyst\n\n" + header + "\n" + rows)
        self.assertEqual(df.shape, (2, 20))
        self.assertEqual(df["c19"].tolist(), [19, 119])

    def test_two_column_table(self):
        df, info = self.load("key,value\nRun,2024-01-02\nBy,analyst\nRows,3\n")
        self.assertEqual(df.shape, (3, 2))


class RowNames(LoaderCase):
    """Cause 5: R's row names are a header one field shorter than the rows, not than the first row."""

    def test_r_row_names(self):
        df, info = self.load('"x","y"\n"a",1,2\n"b",3,4\n"c",5,6\n')
        self.assertEqual(list(df.columns), ["row_label", "x", "y"])
        self.assertEqual(df["y"].tolist(), [2, 4, 6])

    def test_one_long_first_row(self):
        rows = "name,n,city\nSmith, John,1,Oslo\n" + "".join(f"P{i},{i},Rome\n" for i in range(30))
        df, info = self.load(rows)
        self.assertEqual(list(df.columns), ["name", "n", "city"])
        self.assertEqual(df["city"].iloc[-1], "Rome")
        self.assertEqual(df["n"].iloc[-1], 29)


class Comments(LoaderCase):
    """Cause 4: # comment lines between the rows are skipped; values that start with # are data."""

    def test_comment_lines_between_rows(self):
        df, info = self.load("x,y,z\n# comment\n1,2,3\n# comment\n# comment\n4,5,6\n7,8,9\n")
        self.assertEqual(df.shape, (3, 3))
        self.assertEqual(df["x"].tolist(), [1, 4, 7])
        self.assertEqual(info["comment"], "#")

    def test_comment_lines_first_and_between_rows(self):
        # DuckDB's comments/empty_space.csv: no header, the first line a comment (after a space)
        df, info = self.load(" # a comment\n1;3\n # a comment\n1;3\n2;4\n5;6\n")
        self.assertEqual(df.shape, (4, 2))
        self.assertEqual(df.iloc[:, 0].tolist(), [1, 1, 2, 5])
        self.assertNotIn("ragged_rows", info)
        self.assertEqual(info["comment"], "#")

    def test_values_that_start_with_hash_in_one_column(self):
        df, info = self.load("#ff0000\n#00ff00\n#ff0000\n#0000ff\n")
        self.assertEqual(df.iloc[:, 0].tolist(), ["#ff0000", "#00ff00", "#ff0000", "#0000ff"])
        self.assertIsNone(info.get("comment"))

    def test_values_that_start_with_hash(self):
        df, info = self.load("colour,name\n#ff0000,red\n#00ff00,green\n#0000ff,blue\n")
        self.assertEqual(df["colour"].tolist(), ["#ff0000", "#00ff00", "#0000ff"])
        self.assertIsNone(info.get("comment"))

    def test_hash_inside_values(self):
        df, info = self.load("item,rank\n# best sellers\nbolt,#1\nnut,#2\nscrew,#3\n")
        self.assertEqual(df["rank"].tolist()[-1], "#3")
        self.assertIsNone(info.get("comment"))


class MidLineComments(LoaderCase):
    """A # inside lines starts a trailing comment when cutting every line at it splits the rows
    more evenly than not (DuckDB's comments/mid_line*.csv); a # in values that fit the columns
    either way is data (the tests above)."""

    def test_comment_after_values(self):
        df, info = self.load("# Add one full line comment :-)\na;b\n1;3#5;7\n6;#\n")
        self.assertEqual(list(df.columns), ["a", "b"])
        self.assertEqual(df["a"].tolist(), [1, 6])
        self.assertEqual(df["b"].iloc[0], 3)
        self.assertTrue(df["b"].isna().iloc[1])
        self.assertEqual(info["comment"], "#")
        self.assertIsNotNone(self.note(info, "'#' starts a comment inside lines"))

    def test_spaces_before_the_comment(self):
        df, info = self.load("# Add one full line comment :-)\na;b\n1;3   #  5;7\n6;7    #test\n")
        self.assertEqual(df["b"].tolist(), [3, 7])

    def test_comment_in_the_header(self):
        df, info = self.load("# comment\na;b#12;#\n1;3#5;7\n6;7\n")
        self.assertEqual(list(df.columns), ["a", "b"])
        self.assertEqual(df["b"].tolist(), [3, 7])

    def test_no_header(self):
        df, info = self.load("# Add one full line comment :-)\n1;3#5;7\n6;7\n")
        self.assertEqual(df.shape, (2, 2))
        self.assertEqual(df.iloc[:, 1].tolist(), [3, 7])

    def test_hash_in_quoted_values(self):
        df, info = self.load('id,note\n1,"see #4, then #5"\n2,"ok"\n3,"fix #7"\n')
        self.assertEqual(df["note"].tolist(), ["see #4, then #5", "ok", "fix #7"])
        self.assertIsNone(info.get("comment"))


class TrailingDelimiter(LoaderCase):
    """Rows that all end with one empty field beyond the header end with a delimiter, below a
    preamble as at the top of the file (DuckDB's test_apple_financial.csv.gz)."""

    PREAMBLE = "Vendor Name\tTest\nStart Date\t06/02/2024\nEnd Date\t06/29/2024\n"
    HEADER = "Date\tSKU\tTitle\tQuantity\n"

    def test_below_a_preamble(self):
        rows = "06/19/2024\tm1\tMonthly\t1\t\n06/14/2024\tm2\tMonthly\t2\t\n"
        df, info = self.load(self.PREAMBLE + self.HEADER + rows)
        self.assertEqual(list(df.columns), ["Date", "SKU", "Title", "Quantity"])
        self.assertEqual(df["Quantity"].tolist(), [1, 2])
        self.assertEqual(len(info["preamble"]), 3)
        self.assertNotIn("ragged_rows", info)

    def test_ragged_rows_below_a_preamble(self):
        # One row's extra field holds a value: not a trailing delimiter; never read silently.
        rows = "06/19/2024\tm1\tMonthly\t1\t\n06/14/2024\tm2\tMonthly\t2\tx\n"
        df, info = self.load(self.PREAMBLE + self.HEADER + rows)
        self.assertNotEqual(list(df.columns), ["Date", "SKU", "Title", "Quantity"])
        self.assertIn("ragged_rows", info)

    def test_r_row_names_keep_their_reading(self):
        df, info = self.load('"x","y"\n"a",1,\n"b",3,4\n"c",5,6\n')
        self.assertEqual(list(df.columns), ["row_label", "x", "y"])
        self.assertEqual(df["x"].tolist(), [1, 3, 5])


class SpacesBeforeQuotes(LoaderCase):
    """Spaces between a delimiter and a quoted field (1970,  73, "Hi, Mom!") are skipped when
    reading so splits the rows at least as evenly; a quote after spaces that is not quoting
    (an inch mark) stays text."""

    def test_quoted_field_after_spaces(self):
        text = '"Year", "Score", "Title"\n1968,  86, "Greetings"\n1970,  17, "Bloody Mama"\n' \
               '1970,  73, "Hi, Mom!"\n1971,  40, "Born to Win"\n'
        df, info = self.load(text)
        self.assertEqual(list(df.columns), ["Year", "Score", "Title"])
        self.assertEqual(df["Title"].tolist()[2], "Hi, Mom!")
        self.assertEqual(df["Score"].tolist(), [86, 17, 73, 40])
        self.assertNotIn("ragged_rows", info)

    def test_inch_marks_after_spaces(self):
        df, info = self.load('item, size\nbolt, "3/4\nnut, "1/2\nwasher, "5/8\n')
        self.assertEqual(len(df), 3)
        self.assertEqual(df.iloc[:, 1].str.strip().tolist(), ['"3/4', '"1/2', '"5/8'])


class SingleQuotes(LoaderCase):
    """Values quoted with single quotes ('te<TAB>xt2', '''a,b,c''': DuckDB's
    auto/tab_single_quote.csv, from_df.csv) are read so when that splits the lines more evenly
    than double quotes do; apostrophes in text ('twas, it's) stay text."""

    def test_single_quoted_values(self):
        cases = [  # name, text, shape, the value the single quotes hold
            ("a tab inside single quotes", "123\tTEST13\ttext1\n345\tTEST13\t'te\txt2'\n'567'\tTEST13\ttext3\n",
             (3, 3), "te\txt2"),
            ("commas inside single quotes, quotes doubled", "'''a,b,c''',45\n,234\nhello,234\nbye,2\n", (4, 2), "'a,b,c'"),
        ]
        for name, text, shape, value in cases:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual(df.shape, shape)
                self.assertIn(value, df.astype(str).values.ravel().tolist())
                self.assertNotIn("ragged_rows", info)
                self.assertIsNotNone(self.note(info, "single quotes"))

    def test_apostrophes_stay_text(self):
        cases = [
            ("apostrophes that start fields", "name,said\nann,'twas fine\nbob,it's ok\ncy,'90s hits\n", "'twas fine"),
            ("single quotes that split no differently", "a,b\n'x',1\n'y',2\n", "'x'"),
        ]
        for name, text, value in cases:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual(df.shape[1], 2)
                self.assertIn(value, df.astype(str).values.ravel().tolist())
                self.assertIsNone(self.note(info, "single quotes"))


class OneColumnBlankLines(LoaderCase):
    """A one-column file can write a missing value only as an empty line: blank lines between
    its rows are missing values (DuckDB's blank_line.csv counts 1 to 11 without 10); blank
    lines after its last row, or in a file of several columns, are not rows."""

    def test_blank_lines_between_rows(self):
        cases = [  # name, text, values
            ("a header, a blank where 10 is", "col\n" + "".join(f"{i}\n" for i in range(1, 10)) + "\n11\n",
             [1, 2, 3, 4, 5, 6, 7, 8, 9, None, 11]),
            ("no header, two blanks, CRLF", "1\r\n2\r\n\r\n\r\n5\r\n6\r\n1\r\n", [1, 2, None, None, 5, 6, 1]),
        ]
        for name, text, values in cases:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual([None if v != v else v for v in df.iloc[:, 0].tolist()], values)
                self.assertIsNotNone(self.note(info, "blank line"))

    def test_blank_lines_that_are_not_rows(self):
        cases = [  # name, text, rows, columns
            ("blank lines after the last row", "1\n" + "\n" * 50, 1, 1),
            ("a blank line in a file of two columns", "a,b\n1,2\n\n3,4\n", 2, 2),
            ("a blank line above the header", "\ncol\n1\n2\n3\n", 3, 1),
            ("double-spaced lines", "x\n\n1\n\n2\n\n3\n", 3, 1),
            ("lines ending \\r\\r\\n (DuckDB's one_r_n_two.csv)", "one\r\r\ntwo\r\r\nthree\r\r\nfour", 3, 1),
        ]
        for name, text, rows, columns in cases:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual(df.shape, (rows, columns))
                self.assertIsNone(self.note(info, "blank line"))


class Timestamps(LoaderCase):
    """Cause 11: timestamps as databases and pandas write them become dates; text that only
    looks like them stays text."""

    def test_read_as_dates(self):
        cases = [("PostgreSQL offsets", ["2024-01-02 09:00:00+01", "2024-06-02 09:00:00+02"], "2024-01-02 08:00:00+00:00"),
                 ("microseconds", ["2024-01-02 09:00:00.500000", "2024-01-03 10:00:00.250000"], "2024-01-02 09:00:00.500000"),
                 ("day-month-year with a time", ["25-12-2023 09:00:00", "26-12-2023 10:30:00"], "2023-12-25 09:00:00"),
                 ("two-digit years", ["25/12/23", "26/12/23"], "2023-12-25 00:00:00"),
                 ("day-abbreviated month-year", ["3-Nov-23", "14-Dec-23"], "2023-11-03 00:00:00")]
        for name, values, first in cases:
            with self.subTest(name):
                df, info = self.load("when,n\n" + "".join(f"{v},{i}\n" for i, v in enumerate(values * 5)))
                self.assertIn("when", info["parsed_dates"])
                self.assertEqual(str(df["when"].iloc[0]), first)

    def test_stays_text(self):
        df, info = self.load("code,n\n" + "".join(f"{v},{i}\n" for i, v in enumerate(["3-Nov-XY", "AB-Dec-23"] * 5)))
        self.assertNotIn("code", info["parsed_dates"])


class JsonEmptyStrings(LoaderCase):
    """Cause 8: "" for a missing number in JSON is missing; "" among text is a value of the text."""

    def test_numbers_with_empty_strings(self):
        text = '[{"price": 1.5, "n": 3, "ok": true, "name": "a"}, {"price": "", "n": "", "ok": "", "name": ""},' \
               ' {"price": 2.5, "n": 4, "ok": false, "name": "c"}]'
        df, info = self.load(text, "data.json")
        self.assertEqual(str(df["price"].dtype), "float64")
        self.assertEqual(df["price"].isna().tolist(), [False, True, False])
        self.assertEqual(df["n"].tolist()[::2], [3, 4])
        self.assertTrue(df["ok"].isna().iloc[1])
        self.assertEqual(df["ok"].iloc[0], True)
        self.assertEqual(df["name"].dtype, object)  # text: "" is for the markers' rule, as in CSV

    def test_numbers_beside_text(self):
        df, info = self.load('[{"v": 1}, {"v": ""}, {"v": "x"}]', "data.json")
        self.assertEqual(df["v"].dtype, object)


def cell(name, **filled):
    """The template eda/py/name with its placeholders filled."""
    return re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: filled[m[1]], template(name))


class LaterStagesAfterALoad(unittest.TestCase):
    """Crashes of later stages on data loaded right: each on the data that crashed it and on
    data like it that did not."""

    def helpers(self):
        module = types.ModuleType("analyst_charts")
        exec(compile(template("setup.py") + "\n" + cell("chart_helpers.py", HIST_BINS="30"), "chart_helpers.py", "exec"),
             module.__dict__)
        return module

    def test_hist_bins_of_64_bit_hashes(self):
        h = self.helpers()
        for name, values in [("signed 64-bit hashes", [-9_200_000_000_000_000_000, 0, 9_200_000_000_000_000_000]),
                             ("small integers", [1, 2, 3, 40])]:
            with self.subTest(name):
                s = L.pd.Series(values, dtype="int64")
                edges = h.hist_bins(s)
                self.assertTrue((L.np.diff(edges) > 0).all(), edges)
                self.assertEqual(int(L.np.histogram(s, bins=edges)[0].sum()), len(values))

    def test_over_time_by_a_boolean(self):
        h = self.helpers()
        for name, group in [("true/false", [True, False, True, True]), ("text", ["a", "b", "a", "a"])]:
            with self.subTest(name):
                df = L.pd.DataFrame({"day": L.pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-03"]),
                                     "amount": [1.0, 2.0, 3.0, 4.0], "flag": group})
                namespace = dict(h.__dict__, df=df, display=lambda x: None)
                code = stage.with_constants("viz_time.py", {"trend_date": "day", "trend_value": "amount", "trend_group": "flag",
                                                            "TREND_FREQUENCY": "D", "TREND_LINES": 5, "TREND_WORD": "day"})
                exec(compile(code, "viz_time.py", "exec"), namespace)
                self.assertEqual(list(namespace["trend"].columns), list(dict.fromkeys(group)))
                self.assertEqual(float(namespace["trend"].to_numpy().sum()), 10.0)
                L.plt.close("all")


class Encodings(LoaderCase):
    """Cause 10: Shift-JIS is read as Shift-JIS when its bytes prove it; Latin-1 and Windows-1252
    text stay what they were."""

    def test_encodings(self):
        cases = [("Shift-JIS", "名前,値\nさくら,1\nカタカナ,2\n", "cp932", "さくら"),
                 ("Latin-1", "name,n\nCafé,1\nZürich,2\n", "latin-1", "Café"),
                 ("Windows-1252", "name,n\n\u201cquoted\u201d,1\nEuro \u20ac,2\n", "cp1252", "\u201cquoted\u201d")]
        for name, text, encoding, first in cases:
            with self.subTest(name):
                df, info = self.load(text.encode(encoding))
                self.assertEqual(info["encoding"], encoding)
                self.assertEqual(df.iloc[0, 0], first)


class MissingMarkers(LoaderCase):
    """Cause 7: a marker of the same shape as the column's other values is a value."""

    def test_namibia(self):
        codes = ["DE", "FR", "NA", "ZA", "US", "BW", "NA", "AO"]
        text = "country,score\n" + "".join(f"{c},{i}\n" for i, c in enumerate(codes))
        df, info = self.load(text)
        self.assertEqual(int((df["country"] == "NA").sum()), 2)
        self.assertNotIn("country", info["missing_markers"])
        self.assertIsNotNone(self.note(info, "'NA' in 'country' was kept as a value"))

    def test_markers_that_are_missing(self):
        cases = [("NA among numbers", ["12", "NA", "14", "15", "16"]),
                 ("n/a among country codes", ["DE", "FR", "n/a", "ZA", "US"]),
                 ("NA with too little evidence", ["DE", "NA", "FR"])]
        for name, values in cases:
            with self.subTest(name):
                df, info = self.load("v,k\n" + "".join(f"{v},{i}\n" for i, v in enumerate(values)))
                self.assertEqual(int(df["v"].isna().sum()), 1)
                self.assertIn("v", info["missing_markers"])

    def test_none_as_a_category(self):
        levels = ["LOW", "HIGH", "NONE", "MEDIUM", "LOW", "NONE"]
        df, info = self.load("risk,n\n" + "".join(f"{v},{i}\n" for i, v in enumerate(levels)))
        self.assertEqual(int((df["risk"] == "NONE").sum()), 2)


if __name__ == "__main__":
    unittest.main()
