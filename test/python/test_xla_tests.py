"""The extraction of ``tools/differential/xla_tests.py``: the HLO modules of the tests of a C++
test file shaped as XLA's ``host_offloader_test.cc`` (XLA's own file is fetched, never
committed; the snippet here is written for this test)."""

import pytest

from tools.differential import xla_tests

SNIPPET = r"""
TEST_F(OffloaderTest, OneLine) {
  const std::string& hlo_string = R"(
HloModule one, entry_computation_layout={(f32[4]{0:S(5)})->f32[4]{0}}

ENTRY main {
  ROOT p = f32[4] parameter(0)
}
)";
  EXPECT_TRUE(Run(hlo_string));
}

TEST_F(OffloaderTest,
       NameOnTheNextLineWithADelimiter) {
  absl::string_view hlo = R"hlo(
  HloModule two
  ENTRY main {
    p = f32[4] parameter(0)
    ROOT c = f32[4] custom-call(p),
             custom_call_target="MoveToHost"
  }
)hlo";
  absl::string_view expected = R"(not a module: "quoted" )";
}

TEST(OtherSuite, NoModule) {
  EXPECT_EQ(1, 1);
}

TEST_F(OffloaderTest, TwoModules) {
  auto first = R"(HloModule a
ENTRY e { ROOT p = f32[] parameter(0) })";
  auto second = R"(HloModule b
ENTRY e { ROOT p = s32[] parameter(0) })";
}
"""


def test_every_test_is_found_with_its_modules() -> None:
    tests = xla_tests.hlo_modules(SNIPPET)
    assert list(tests) == ["OneLine", "NameOnTheNextLineWithADelimiter", "NoModule", "TwoModules"]
    assert [len(modules) for modules in tests.values()] == [1, 1, 0, 2]
    assert tests["OneLine"][0].startswith("\nHloModule one, entry_computation_layout=")
    assert tests["OneLine"][0].endswith("}\n")
    delimited = tests["NameOnTheNextLineWithADelimiter"][0]
    assert 'custom_call_target="MoveToHost"\n  }\n' in delimited
    assert "not a module" not in delimited


def test_each_module_gets_one_name() -> None:
    names = xla_tests.module_names(xla_tests.hlo_modules(SNIPPET))
    assert list(names) == [
        "OneLine",
        "NameOnTheNextLineWithADelimiter",
        "TwoModules#0",
        "TwoModules#1",
    ]
    assert names["TwoModules#1"].startswith("HloModule b")


def test_an_unterminated_raw_string_is_an_error() -> None:
    with pytest.raises(ValueError, match="unterminated raw string"):
        xla_tests.raw_strings('x = R"(HloModule never closed')


def test_a_repeated_test_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="two tests named OneLine"):
        xla_tests.hlo_modules(SNIPPET + SNIPPET)
