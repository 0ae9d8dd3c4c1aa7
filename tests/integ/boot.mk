# bootstrap and rtopo-run (tests/integ/boot_*)
check_PROGRAMS += tests/integ/boot_check
tests_integ_boot_check_SOURCES = tests/integ/boot_check.c
tests_integ_boot_check_LDADD = librtopo_core.la
check_PROGRAMS += tests/integ/leave_check
tests_integ_leave_check_SOURCES = tests/integ/leave_check.c tests/integ/integ_util.h
tests_integ_leave_check_LDADD = librtopo.la
tests_integ_leave_check_LDFLAGS = $(INTREE_LINK)
BOOT_TESTS = \
	tests/integ/boot_single.sh \
	tests/integ/boot_normal.sh \
	tests/integ/boot_badsecret.sh \
	tests/integ/boot_die.sh \
	tests/integ/boot_launcher.sh \
	tests/integ/boot_pmix.sh \
	tests/integ/boot_run_args.sh \
	tests/integ/boot_leave.sh \
	tests/integ/boot_secret.sh \
	tests/integ/boot_frames.sh \
	tests/integ/boot_idle.sh \
	tests/integ/boot_contradict.sh
TESTS += $(BOOT_TESTS)
EXTRA_DIST += $(BOOT_TESTS) tests/integ/boot_lib.sh
