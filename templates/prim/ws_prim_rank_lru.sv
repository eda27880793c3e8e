{% include "partials/header.sv" %}
// Primitive: true LRU replacement state of NumSets sets of NumWays ways, as a rank (age) per way:
// 0 is the most recently used, NumWays - 1 the least. At reset way w has rank w. A touch makes
// its way the most recent and ages by one the ways of its set that were more recent than it.
// victim_o is the way to replace in set set_i: its first way whose valid_i bit is clear, else
// its least recently used way (a caller that picks free ways itself ties valid_i high).
// NumSets = 1 is a fully associative table (SetW = 1, the set inputs tied to 0).

module {{ module }} #(
  parameter int unsigned NumSets = 1,
  parameter int unsigned NumWays = 2,
  parameter int unsigned SetW    = 1,  // set index width (2 ** SetW >= NumSets)
  parameter int unsigned WayW    = 1   // way index and rank width (2 ** WayW >= NumWays)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               touch_i,      // touch_way_i of set touch_set_i is used at this edge
  input  logic [SetW-1:0]    touch_set_i,
  input  logic [WayW-1:0]    touch_way_i,
  input  logic [SetW-1:0]    set_i,        // the set victim_o is chosen in
  input  logic [NumWays-1:0] valid_i,      // that set's ways in use
  output logic [WayW-1:0]    victim_o
);

  if (NumWays < 2 || SetW < 1 || WayW < 1 || NumSets > 2 ** SetW || NumWays > 2 ** WayW)
  begin : g_bad_params
    $error("{{ module }}: need NumWays >= 2 and the index widths to hold NumSets and NumWays");
  end

  logic [WayW-1:0] rank_d [NumSets][NumWays];
  logic [WayW-1:0] rank_q [NumSets][NumWays];
  logic [WayW-1:0] touched_rank;
  logic [WayW-1:0] lru_way;
  logic            free;
  logic [WayW-1:0] free_way;

  // The least recently used way of set_i, and its first free way.
  always_comb begin : p_lru
    lru_way = '0;
    for (int unsigned w = 0; w < NumWays; w++) begin
      if (rank_q[set_i][w] == WayW'(NumWays - 1)) begin
        lru_way = WayW'(w);
      end
    end
  end

  {{ prim.first_one }} #(
    .N    (NumWays),
    .IdxW (WayW)
  ) u_free (
    .in_i    (~valid_i),
    .found_o (free),
    .idx_o   (free_way)
  );

  assign victim_o = free ? free_way : lru_way;

  // The touched way becomes most recent; ways more recent than it age by one.
  assign touched_rank = rank_q[touch_set_i][touch_way_i];

  always_comb begin : p_update
    for (int unsigned s = 0; s < NumSets; s++) begin
      for (int unsigned w = 0; w < NumWays; w++) begin
        rank_d[s][w] =
            (touch_i && touch_set_i == SetW'(s) && touch_way_i == WayW'(w)) ? '0 :
            (touch_i && touch_set_i == SetW'(s) && rank_q[s][w] < touched_rank) ?
                rank_q[s][w] + WayW'(1) : rank_q[s][w];
      end
    end
  end

  // One register per rank, so that each has its constant reset value (way w: rank w).
  for (genvar s = 0; s < NumSets; s++) begin : g_set
    for (genvar w = 0; w < NumWays; w++) begin : g_way
      always_ff @(posedge clk_i or negedge rst_ni) begin : p_rank
        if (!rst_ni) begin
          rank_q[s][w] <= WayW'(w);
        end else begin
          rank_q[s][w] <= rank_d[s][w];
        end
      end
    end
  end

endmodule : {{ module }}
