"""Z3 encodings of rule invariants: one small function per invariant (see ``proofs.harness``)."""
