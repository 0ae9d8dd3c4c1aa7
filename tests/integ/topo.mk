# mesh and hypercube shifts over the network (shift_check under rtopo-run)
TOPO_INTEG_TESTS = tests/integ/shift_mesh_tcp.sh tests/integ/shift_cube_tcp.sh \
	tests/integ/shift_mesh_verbs.sh tests/integ/shift_cube_verbs.sh
TESTS += $(TOPO_INTEG_TESTS)
EXTRA_DIST += $(TOPO_INTEG_TESTS) tests/integ/shift_mesh.sh \
	tests/integ/shift_cube.sh
