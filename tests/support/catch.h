// Catch2 v2 and v3 differ only in the headers to include (v3 splits them:
// TEMPLATE_TEST_CASE has its own).
#ifndef TENSOROPS_TESTS_SUPPORT_CATCH_H_
#define TENSOROPS_TESTS_SUPPORT_CATCH_H_

#ifdef TENSOROPS_CATCH3
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#else
#include <catch2/catch.hpp>
#endif

#endif  // TENSOROPS_TESTS_SUPPORT_CATCH_H_
