/*
 * cmocka_main.h - the main of a cmocka test program, written once:
 *
 *     IOBTEST_MAIN(cmocka_unit_test(test_one),
 *                  cmocka_unit_test(test_two))
 *
 * defines main(), which runs the tests given, in that order, as one group
 * without setup or teardown and returns cmocka's count of failures (the
 * same program, and the same output, as the main written out by hand).
 * Include it after <cmocka.h>; iob_add_unit_test (tests/CMakeLists.txt)
 * puts tests/support on the include path.
 */
#ifndef IOBTEST_CMOCKA_MAIN_H
#define IOBTEST_CMOCKA_MAIN_H

#define IOBTEST_MAIN(...)                                         \
	int main(void)                                            \
	{                                                         \
		const struct CMUnitTest tests[] = {__VA_ARGS__};  \
		return cmocka_run_group_tests(tests, NULL, NULL); \
	}

#endif
