"""Column types DuckDB's auto-detection reads right in its own CSV test files (issue 35's
"types differ" rows of docs/loader-corpus.md, judged in eda/testdata/corpus-judgements/types.tsv):
each rule on the case it exists for and on its counter-case.

Runs with the kernel image's python3 (pandas), beside the other unit tests of eda/py/tests:
    go test ./eda/ -run TestPythonUnitTests
"""
import os
import tempfile
import types
import unittest

import stage

L = types.SimpleNamespace(**stage.loader())


class TypesCase(unittest.TestCase):
    def load(self, text):
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "data.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return L.load_table(path)

    def column(self, values, name="when"):
        """load_table of a file with the column name holding values, beside a numbered column."""
        return self.load(f"n,{name}\n" + "".join(f"{i},{v}\n" for i, v in enumerate(values)))


class MoreDateFormats(TypesCase):
    """As DuckDB's sniffer tests write dates (auto/time_date_timestamp_*.csv, special_date.csv)."""

    def test_read_as_dates(self):
        cases = [
            ("two-digit years after dashes", ["13-12-04", "02-02-02", "01-01-90"], "2004-12-13 00:00:00"),
            ("month first, two-digit years", ["12-13-04", "02-02-02", "01-01-90"], "2004-12-13 00:00:00"),
            ("two-digit years with a time", ["13-12-04 15:16:00", "02-02-02 14:15:00"], "2004-12-13 15:16:00"),
            ("12-hour clock", ["12-13-2004 03:16:00 PM", "01-01-2000 12:12:00 AM"], "2004-12-13 15:16:00"),
            ("12-hour clock, day first", ["13/12/2004 03:16:00 PM", "01/01/2000 12:12:00 AM"], "2004-12-13 15:16:00"),
            ("year first with dots", ["2004.12.13", "2000.01.01"], "2004-12-13 00:00:00"),
            ("year first with dots and a time", ["2004.12.13 15:16:00", "2000.01.01 12:12:00"], "2004-12-13 15:16:00"),
            ("spaces around the values", ['"  2004-12-13  "', '"  2000-01-01"', '" 2002-02-02   "'], "2004-12-13 00:00:00"),
        ]
        for name, values, first in cases:
            with self.subTest(name):
                df, info = self.column(values * 4)
                self.assertIn("when", info["parsed_dates"], info["notes"])
                self.assertEqual(str(df["when"].iloc[0]), first)
                self.assertEqual(int(df["when"].isna().sum()), 0)

    def test_stays_text(self):
        cases = [
            ("version numbers", ["1.2.20", "2.2.2", "1.10.3"]),
            ("a date followed by more text", ["2000-01-01 a", "2000-01-01 b", "2002-02-02 c"]),
            ("an hour past 12 with PM", ["12-13-2004 15:16:00 PM", "01-01-2000 13:12:00 PM"]),
        ]
        for name, values in cases:
            with self.subTest(name):
                df, info = self.column(values * 4)
                self.assertNotIn("when", info["parsed_dates"])
                self.assertEqual(df["when"].dtype, object)


class ZoneNames(TypesCase):
    """timestamp_with_tz.csv: UTC after a space (as BigQuery writes timestamps) is an offset."""

    def test_utc_after_a_space(self):
        df, info = self.column(["2021-05-25 04:55:03.382494 UTC", "2021-05-26 09:55:03.5 UTC"] * 4)
        self.assertEqual(str(df["when"].iloc[0]), "2021-05-25 04:55:03.382494+00:00")
        df, info = self.column(["2021-05-25 04:55:03 GMT", "2021-05-26 09:55:03 GMT"] * 4)
        self.assertEqual(str(df["when"].iloc[1]), "2021-05-26 09:55:03+00:00")

    def test_other_words_after_a_time(self):
        df, info = self.column(["2021-05-25 04:55:03 ABC", "2021-05-26 09:55:03 XYZ"] * 4)
        self.assertEqual(df["when"].dtype, object)


class TwoDigitYearsWithDots(TypesCase):
    """auto/time_date_timestamp_yy.mm.dd.csv: 90.01.01 can only be year first; 13.12.90 only day
    first; 04.12.13 either way, which the loader says (a note and an ambiguous_dates alert)."""

    def test_year_first_proven(self):
        df, info = self.column(["90.01.01", "02.02.02", "04.12.13"] * 4)
        self.assertEqual(str(df["when"].iloc[2]), "2004-12-13 00:00:00")
        self.assertNotIn("when", info["ambiguous_dates"])
        df, info = self.column(["90.01.01 00:12:00", "02.02.02 14:15:00", "04.12.13 15:16:00"] * 4)
        self.assertEqual(str(df["when"].iloc[2]), "2004-12-13 15:16:00")

    def test_day_first_proven(self):
        df, info = self.column(["13.12.90", "02.02.02", "04.12.13"] * 4)
        self.assertEqual(str(df["when"].iloc[0]), "1990-12-13 00:00:00")
        self.assertNotIn("when", info["ambiguous_dates"])

    def test_either_way_is_said(self):
        df, info = self.column(["04.12.13", "02.02.02", "01.03.05"] * 4)
        self.assertEqual(str(df["when"].iloc[0]), "2013-12-04 00:00:00")  # day first, as most who write dots do
        self.assertIn("when", info["ambiguous_dates"])
        self.assertIn("%y.%m.%d", info["ambiguous_dates"]["when"]["message"])

    def test_version_numbers_stay_text(self):
        df, info = self.column(["1.2.20", "2.10.15", "3.4.11"] * 4)
        self.assertEqual(df["when"].dtype, object)


class TimesOfDay(TypesCase):
    """auto/time.csv, real/tmp2013-06-15.csv.gz: times of day stay text (pandas has no type for
    them; as text they sort in time order), and a note says what they are."""

    def test_times_are_named_in_a_note(self):
        df, info = self.column(["05:40:00", "21:30:00", " 17:45:00 "] * 4, "t")
        self.assertEqual(df["t"].dtype, object)
        self.assertEqual(info["times_of_day"], ["t"])
        self.assertTrue(any("times of day" in n and "'t'" in n for n in info["notes"]), info["notes"])
        alerts = [a for a in info.get("layout_alerts", []) if a["type"] == "times_as_text"]
        self.assertEqual([a["column"] for a in alerts], ["t"], info.get("layout_alerts"))

    def test_not_times(self):
        for name, values in [("scores", ["3:1", "2:0", "1:1"]), ("hours past 23", ["25:40:00", "31:30:00"]),
                             ("ratios", ["1:2:3", "4:5:6"])]:
            with self.subTest(name):
                df, info = self.column(values * 4, "t")
                self.assertEqual(info.get("times_of_day", []), [])
                self.assertEqual([a for a in info.get("layout_alerts", []) if a["type"] == "times_as_text"], [])


class AmbiguousDecimalComma(TypesCase):
    """double_trouble.csv: 123,000 is 123 with a decimal comma or 123000 with ',' grouping
    thousands; when no other number in the file decides, the loader says so (a note and an alert)."""

    def test_only_groups_of_three(self):
        df, info = self.load("text|number\nfoo|123,000\nbar|45,500\nbaz|7,250\n")
        alerts = [a for a in info.get("layout_alerts", []) if a["type"] == "ambiguous_numbers"]
        self.assertEqual(len(alerts), 1, info.get("layout_alerts"))
        self.assertIn("123,000", alerts[0]["message"])
        self.assertIn(alerts[0]["message"], info["notes"])

    def test_decided_by_other_numbers(self):
        for name, text in [("a decimal comma elsewhere", "text|number\nfoo|123,000\nbar|3,5\n"),
                           ("points grouping thousands", "text|number\nfoo|123,000\nbar|1.234,500\n"),
                           ("no comma at all", "text|number\nfoo|123\nbar|3.5\n")]:
            with self.subTest(name):
                df, info = self.load(text)
                self.assertEqual([a for a in info.get("layout_alerts", []) if a["type"] == "ambiguous_numbers"], [])


class AmbiguousGrouping(TypesCase):
    """mixed_decimal.csv: 5.555 among decimal commas (5,5) is 5555 with '.' grouping thousands or
    5.555 with a stray decimal point; when no value of the column decides, the loader says so."""

    def test_undecided(self):
        df, info = self.load("A;B\n1;5,5\n2;5,5\n3;5\n4;5.555\n5;5,5\n")
        alerts = [a for a in info.get("layout_alerts", []) if a["type"] == "ambiguous_numbers"]
        self.assertEqual([a["column"] for a in alerts], ["B"], info.get("layout_alerts"))
        self.assertIn("5.555", alerts[0]["message"])
        self.assertEqual(df["B"].tolist(), [5.5, 5.5, 5, 5555, 5.5])  # read as the rule reads it, and said

    def test_decided_by_a_grouped_decimal(self):
        df, info = self.load("A;B\n1;5,5\n2;1.234,5\n3;5.555\n")
        self.assertEqual([a for a in info.get("layout_alerts", []) if a["type"] == "ambiguous_numbers"], [])
        self.assertEqual(df["B"].tolist(), [5.5, 1234.5, 5555])


class PhoneNumbers(TypesCase):
    """phonenumbers.csv: numbers in international form (+318855443322) are codes, not amounts."""

    def test_international_numbers_stay_text(self):
        df, info = self.column(["+318855443322", "+552244331122", "+12233445567"], "phone")
        self.assertEqual(df["phone"].tolist(), ["+318855443322", "+552244331122", "+12233445567"])
        self.assertTrue(any("phone numbers" in n for n in info["notes"]), info["notes"])

    def test_whatever_the_name(self):
        df, info = self.column(["+318855443322", "+552244331122", "+12233445567"], "contact")
        self.assertEqual(df["contact"].dtype, object)

    def test_signed_numbers_are_numbers(self):
        df, info = self.column(["+12", "-3", "+1234.5", "+7"], "change")
        self.assertEqual(df["change"].tolist(), [12, -3, 1234.5, 7])
        df, info = self.column(["+12", "+3", "+45"], "change")
        self.assertEqual(df["change"].tolist(), [12, 3, 45])

    def test_big_unsigned_numbers_are_numbers(self):
        df, info = self.column(["318855443322", "552244331122"], "bytes")
        self.assertEqual(df["bytes"].dtype, "int64")


if __name__ == "__main__":
    unittest.main()
