`ifndef {{ asserts_off }}
  // Assertions (define {{ asserts_off }} to leave them out), written with the macros of
  // {{ assert_svh }}. They are enabled from the first clock edge after reset: a register (rather
  // than `disable iff (!rst_ni)`) keeps the asynchronous reset out of synchronous logic
  // (Verilator SYNCASYNCNET); synthesis removes it with the assertions.
  logic assert_active_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_assert_active
    if (!rst_ni) begin
      assert_active_q <= 1'b0;
    end else begin
      assert_active_q <= 1'b1;
    end
  end
