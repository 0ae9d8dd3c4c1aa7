# mesh and hypercube shifts over the network
