{% include "partials/header.sv" %}
// Primitive: round-robin search. The first set bit of req_i looking from index ptr_i upwards and
// wrapping around: found_o says whether any is set, idx_o is its index (0 when none is).
// Combinational; the caller keeps and moves the pointer.

module {{ module }} #(
  parameter int unsigned N    = 2,  // requesters
  parameter int unsigned IdxW = 1   // index width (2 ** IdxW >= N)
) (
  input  logic [N-1:0]    req_i,
  input  logic [IdxW-1:0] ptr_i,
  output logic            found_o,
  output logic [IdxW-1:0] idx_o
);

  if (N < 1 || IdxW < 1 || N > 2 ** IdxW) begin : g_bad_params
    $error("{{ module }}: need N >= 1 and 1 <= IdxW with N <= 2 ** IdxW");
  end

  always_comb begin : p_search
    logic [IdxW-1:0] j;
    found_o = 1'b0;
    idx_o   = '0;
    j       = '0;
    for (int unsigned i = 0; i < N; i++) begin
      j = IdxW'((32'(ptr_i) + i) % N);
      if (!found_o && req_i[j]) begin
        found_o = 1'b1;
        idx_o   = j;
      end
    end
  end

endmodule : {{ module }}
