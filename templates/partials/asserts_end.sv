`endif  // {{ asserts_off }}
