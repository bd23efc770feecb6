"""The relationships between tables (relationships.py): names, domains, the chance bound, and
find_relationships on small tables, each rule beside its counter-case."""
import math
import unittest

import numpy as np
import pandas as pd

import stage

R = stage.run("relationships.py", tables={})


def links(frames):
    found = R["find_relationships"](frames)
    return found, {(r["from"], r["from_column"], r["to"], r["to_column"]) for r in found["relationships"]}


class TestNames(unittest.TestCase):
    def test_singular_words(self):
        for name, want in [("merchantCategoryCodes", ["merchant", "category", "code"]), ("countries", ["country"]),
                           ("address", ["address"]), ("bus", ["bus"]), ("order_ids", ["order", "ids"]), ("order_keys", ["order", "key"]), ("ID", ["id"])]:
            with self.subTest(name=name):
                self.assertEqual(R["singular_words"](name), want)

    def test_names_agree(self):
        for column, table, key, want in [("customer_id", "customers", "customer_id", True),
                                         ("customer_id", "customers", "id", True),
                                         ("customer", "customer_data", "id", True),
                                         ("product_id", "customers", "id", False),
                                         ("id", "customers", "id", False),
                                         ("amount", "orders", "amount", True)]:
            with self.subTest(column=column, table=table, key=key):
                self.assertEqual(R["names_agree"](column, table, key), want)

    def test_loader_name_words_not_shadowed(self):
        loader = stage.run("load_source.py", "load.py", "load_formats.py", "load_exports.py", "relationships.py", tables={})
        self.assertEqual(loader["name_words"]("Countries"), ["countries"])  # the loader's: no singular
        self.assertEqual(loader["singular_words"]("Countries"), ["country"])


class TestValues(unittest.TestCase):
    def test_whole_numbers(self):
        for values, want in [([1.0, 2.0], [1, 2]), ([1.5], None), ([np.nan], None), ([2.0**63], None), ([-2.0**62], [-2**62])]:
            with self.subTest(values=values):
                got = R["whole_numbers"](values)
                self.assertEqual(None if got is None else got.tolist(), want)

    def test_digit_numbers(self):
        for values, want in [(["007", "42"], [7, 42]), (["7a"], None), ([], None), (["-3", "+4"], [-3, 4]),
                             (["1" * 19], None)]:
            with self.subTest(values=values):
                got = R["digit_numbers"](values)
                self.assertEqual(None if got is None else got.tolist(), want)

    def test_comparable_domains(self):
        for values, domain, reason in [
            (np.array([1, 2]), "integer", None), (np.array([1.0, 2.0]), "integer", None),
            (np.array([1.5, 2.0]), None, "fractional numbers"), (np.array(["a", "b"], dtype=object), "text", None),
            (np.array([True, False]), None, "booleans"), (np.array([1, 2], dtype=object), "integer", None),
            (np.array(["2024-01-01"], dtype="datetime64[ns]"), "datetime", None),
            (np.array([1, "a"], dtype=object), None, "mixed types (mixed-integer)"),
            (np.array([np.timedelta64(1, "s")]), None, "durations"),
        ]:
            with self.subTest(values=values):
                got = R["comparable"](values)
                self.assertEqual((got[0], got[2]), (domain, reason))

    def test_distinct_values(self):
        for s, want in [(pd.Series([3, 1, 3]), [1, 3]), (pd.Series([1.0, np.nan, 1.0]), [1.0]),
                        (pd.Series(["b", None, "b", "a"]), ["b", "a"]), (pd.Series([1, None, 2], dtype="Int64"), [1, 2]),
                        (pd.Series(["x", "y", "x"], dtype="category"), ["x", "y"])]:
            with self.subTest(s=s.tolist()):
                self.assertEqual(R["distinct_values"](s).tolist(), want)

    def test_in_sorted(self):
        for values, keys, want in [([1, 5, 9], [1, 2, 9], [True, False, True]), ([1], [], [False]), ([10], [1, 2], [False])]:
            with self.subTest(values=values, keys=keys):
                got = R["in_sorted"](np.array(values), np.array(keys, dtype=np.int64))
                self.assertEqual(got.tolist(), want)

    def test_shown(self):
        for value, domain, want in [(7.0, "integer", "7"), (np.datetime64("2024-01-02T03:04"), "datetime", "2024-01-02T03:04:00"),
                                    ("x", "text", "x")]:
            with self.subTest(value=value):
                self.assertEqual(R["shown"](value, domain), want)


class TestChance(unittest.TestCase):
    def column(self, values, domain="integer"):
        return {"domain": domain, "codes": np.asarray(values, dtype=np.int64), "values": np.asarray(values)}

    def test_chance_bound_by_hand(self):
        # a: 1..10, keys of b: 1..100, so p = 10 keys / 10 numbers in a's range = 1: no evidence.
        self.assertEqual(R["chance_bound"](self.column(range(1, 11)), self.column(range(1, 101)), 10, 10), 1.0)
        # keys every 10th number in a wide range: p = 0.1; q = 1 of n = 20: bound = p^n = 0.1^20
        a = self.column(np.arange(0, 2000, 100))
        b = self.column(np.arange(0, 2000, 10))
        p = len(range(0, 1901, 10)) / 1901
        self.assertAlmostEqual(math.log(R["chance_bound"](a, b, 20, 20)), 20 * math.log(p), places=9)

    def test_chance_for_text_and_dates(self):
        self.assertIsNone(R["chance_bound"]({"domain": "text", "codes": None, "values": np.array(["a", "b"], dtype=object)},
                                            self.column([1, 2]), 2, 2))
        self.assertEqual(R["chance_bound"]({"domain": "datetime"}, {"domain": "datetime"}, 1, 1), 1.0)


class TestFind(unittest.TestCase):
    def test_key_referred_to(self):
        customers = pd.DataFrame({"customer_id": range(101, 121), "name": [f"n{i}" for i in range(20)]})
        orders = pd.DataFrame({"order_id": range(1, 13), "customer_id": [*range(101, 111), 101, 999]})
        found, got = links({"orders": orders, "customers": customers})
        self.assertIn(("orders", "customer_id", "customers", "customer_id"), got)
        r = next(r for r in found["relationships"] if r["from_column"] == "customer_id")
        self.assertEqual((r["orphan_rows"], r["orphan_values"], r["orphan_sample"][0]["value"]), (1, 1, "999"))
        self.assertEqual([t["keys"] for t in found["tables"]], [["order_id"], ["customer_id", "name"]])

    def test_too_few_matches_is_no_relationship(self):
        customers = pd.DataFrame({"customer_id": [101, 102, 103, 104]})
        orders = pd.DataFrame({"customer_id": [101, 102, 900, 901, 902]})
        self.assertEqual(links({"orders": orders, "customers": customers})[1], set())

    def test_small_numbers_under_other_names_are_coincidence(self):
        a = pd.DataFrame({"quantity": [1, 2, 3, 2, 1]})
        b = pd.DataFrame({"store_id": range(1, 11)})
        found, got = links({"a": a, "b": b})
        self.assertEqual(got, set())
        self.assertTrue(any(c["from_column"] == "quantity" for c in found["not_counted"]))

    def test_text_keys(self):
        a = pd.DataFrame({"country": ["de", "fr", "de", "it"]})
        b = pd.DataFrame({"code": ["de", "fr", "it", "es"], "name": ["D", "F", "I", "E"]})
        self.assertIn(("a", "country", "b", "code"), links({"a": a, "b": b})[1])

    def test_text_and_numbers_do_not_join_but_are_flagged(self):
        a = pd.DataFrame({"customer_id": ["007", "008", "009"]})
        b = pd.DataFrame({"customer_id": [7, 8, 9, 10]})
        found, got = links({"a": a, "b": b})
        self.assertEqual(got, set())
        self.assertTrue(found["alerts"], found)

    def test_fractions_and_booleans_not_compared(self):
        a = pd.DataFrame({"price": [1.5, 2.5], "flag": [True, False], "k": [1, 2]})
        found, _ = links({"a": a})
        reasons = {c["column"]: c["reason"] for c in found["tables"][0]["not_compared"]}
        self.assertEqual(reasons, {"price": "fractional numbers", "flag": "booleans"})

    def test_described_in_words(self):
        customers = pd.DataFrame({"customer_id": [101, 102, 103]})
        orders = pd.DataFrame({"customer_id": [101, 102, 102]})
        text = R["describe_relationships"](R["find_relationships"]({"orders": orders, "customers": customers}))
        self.assertIn("orders.customer_id → customers.customer_id", text)
        empty = R["describe_relationships"](R["find_relationships"]({"a": pd.DataFrame({"x": [1.5]})}))
        self.assertIn("No relationships", empty)

    def test_missing_table_named(self):
        with self.assertRaisesRegex(KeyError, "tables has no 'x'"):
            stage.run(("relationships.py", {"RELATIONSHIP_TABLES": ["x"]}), tables={})


if __name__ == "__main__":
    unittest.main()
