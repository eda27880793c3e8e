{% include "partials/header.sv" %}
// Primitive: a fully associative lookup. Entry i matches when it is valid and its tag equals the
// key; match_o has one bit per entry, hit_o says whether any matches and idx_o is the lowest
// matching entry (0 on a miss). Every comparison has a constant index, so synthesis builds one
// comparator per entry and nothing wider. Combinational.

module {{ module }} #(
  parameter int unsigned N    = 2,                // entries
  parameter int unsigned IdxW = 1,                // entry index width (2 ** IdxW >= N)
  parameter type         tag_t = logic [0:0]      // what is compared
) (
  input  logic [N-1:0]    valid_i,
  input  tag_t            tag_i [N],
  input  tag_t            key_i,
  output logic [N-1:0]    match_o,
  output logic            hit_o,
  output logic [IdxW-1:0] idx_o
);

  always_comb begin : p_match
    for (int unsigned i = 0; i < N; i++) begin
      match_o[i] = valid_i[i] && tag_i[i] == key_i;
    end
  end

  {{ prim.first_one }} #(
    .N    (N),
    .IdxW (IdxW)
  ) u_first (
    .in_i    (match_o),
    .found_o (hit_o),
    .idx_o   (idx_o)
  );

endmodule : {{ module }}
