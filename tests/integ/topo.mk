# mesh and hypercube shifts over the network (shift_check under rtopo-run)
# (the matrix in Makefile.include runs shift_mesh.sh and shift_cube.sh)
