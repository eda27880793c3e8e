{% include "partials/header.sv" %}
// Primitive: the lowest set bit of a vector (a priority encoder). found_o says whether any bit is
// set; idx_o is the lowest set bit's index, 0 when none is. Combinational.

module {{ module }} #(
  parameter int unsigned N    = 2,  // bits
  parameter int unsigned IdxW = 1   // index width (2 ** IdxW >= N)
) (
  input  logic [N-1:0]    in_i,
  output logic            found_o,
  output logic [IdxW-1:0] idx_o
);

  if (N < 1 || IdxW < 1 || N > 2 ** IdxW) begin : g_bad_params
    $error("{{ module }}: need N >= 1 and 1 <= IdxW with N <= 2 ** IdxW");
  end

  always_comb begin : p_first
    found_o = 1'b0;
    idx_o   = '0;
    for (int unsigned i = 0; i < N; i++) begin
      if (!found_o && in_i[i]) begin
        found_o = 1'b1;
        idx_o   = IdxW'(i);
      end
    end
  end

endmodule : {{ module }}
