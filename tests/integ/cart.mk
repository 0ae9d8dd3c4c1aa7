# dimension shifts, sub-topologies and Cannon's algorithm over the network
# (cart_check under rtopo-run on 4, 9 and 16 ranks), and their errors
check_PROGRAMS += tests/integ/cart_check
tests_integ_cart_check_SOURCES = tests/integ/cart_check.c tests/integ/integ_util.h
tests_integ_cart_check_LDADD = librtopo.la
tests_integ_cart_check_LDFLAGS = $(INTREE_LINK)
CART_TESTS = tests/integ/cart_errors.sh
TESTS += $(CART_TESTS)
EXTRA_DIST += $(CART_TESTS)
