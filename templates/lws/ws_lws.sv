{% include "partials/header.sv" %}
// Locality-aware warp scheduler, one warp scheduler's unit -- seed 002 (Chen, "Improving GPU
// Memory Performance via Address Pre-computation"), section 3.4, Fig. 3.11-3.14, Table 5.2.
//
// The warp queue holds, per warp slot, its access range (per data array: a region index and a
// bitmap of the region's sub-regions it touches, empty for an array it does not read) and its
// block age; the locality
// degree table holds one degree per pair of slots: per array, the sub-regions both touch when
// their regions are equal, summed. Per cycle, combinational in the inputs and the state before
// the edge:
//   demotion   the active warps that wait long (long_i) leave the active group;
//   promotion  if it holds fewer than MaxActive warps, one waiting warp that does not wait long
//              joins: a starved one (the lowest slot), else the one whose degrees with the
//              group's warps sum highest (the lowest slot on ties);
//   issue      the warp issued last if it is in the group and ready (ready_i); else a starved
//              ready warp of the group (the lowest slot); else the ready warp of the group with
//              the highest degree with the warp issued last (the lowest slot on ties).
// At the edge the group and the warp issued are kept; set_valid_i writes a slot's vector, its
// degrees with every other slot's vector before the edge, and zeroes its age; with set_first_i
// every other slot ages (saturating at StarveLimit + 1). A warp starves once its age exceeds
// StarveLimit. Semantics: docs/decisions/lws.md.

{% include "partials/module_head.sv" %}

  // ---------------------------------------------------------------------------------------------
  // Derived widths: the package's values must follow from this instance's parameters
  // ---------------------------------------------------------------------------------------------

  if (SlotW != ((NumWarps > 1) ? $clog2(NumWarps) : 1)) begin : g_bad_slot_w
    $error("{{ module }}: the package's SlotW (%0d) does not follow from the parameters",
           SlotW);
  end
  if (DegW != $clog2(NumArrays * NumSub + 1)) begin : g_bad_deg_w
    $error("{{ module }}: the package's DegW (%0d) does not follow from the parameters",
           DegW);
  end
  if (ScoreW != $clog2(MaxActive * NumArrays * NumSub + 1)) begin : g_bad_score_w
    $error("{{ module }}: the package's ScoreW (%0d) does not follow from the parameters",
           ScoreW);
  end
  if (AgeW != $clog2(StarveLimit + 2)) begin : g_bad_age_w
    $error("{{ module }}: the package's AgeW (%0d) does not follow from the parameters",
           AgeW);
  end
  if (NumPairs != NumWarps * (NumWarps - 1) / 2) begin : g_bad_num_pairs
    $error("{{ module }}: the package's NumPairs (%0d) does not follow from the parameters",
           NumPairs);
  end
  if (DegRows != ((NumPairs > 0) ? NumPairs : 1)) begin : g_bad_deg_rows
    $error("{{ module }}: the package's DegRows (%0d) does not follow from the parameters",
           DegRows);
  end
  if (NumVec != NumWarps * NumArrays) begin : g_bad_num_vec
    $error("{{ module }}: the package's NumVec (%0d) does not follow from the parameters",
           NumVec);
  end

  localparam logic [AgeW-1:0] AgeMax = AgeW'(StarveLimit + 1);

  // The degree table's entry of slots i != j: pairs (i, j), i < j, row by row.
  function automatic int unsigned pair_idx(int unsigned a, int unsigned b);
    int unsigned i, j;
    i = (a < b) ? a : b;
    j = (a < b) ? b : a;
    return i * NumWarps - i * (i + 1) / 2 + (j - i - 1);
  endfunction

  // Sub-regions two bitmaps share.
  function automatic logic [DegW-1:0] shared(logic [NumSub-1:0] a, logic [NumSub-1:0] b);
    logic [DegW-1:0] n;
    n = '0;
    for (int unsigned k = 0; k < NumSub; k++) begin
      if (a[k] && b[k]) begin
        n = n + DegW'(1);
      end
    end
    return n;
  endfunction

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------

  logic [RegionW-1:0]  region_d [NumVec];
  logic [RegionW-1:0]  region_q [NumVec];
  logic [NumSub-1:0]   sub_d [NumVec];
  logic [NumSub-1:0]   sub_q [NumVec];
  logic [AgeW-1:0]     age_d [NumWarps];
  logic [AgeW-1:0]     age_q [NumWarps];
  logic [DegW-1:0]     deg_d [DegRows];
  logic [DegW-1:0]     deg_q [DegRows];
  logic [NumWarps-1:0] active_d, active_q;
  logic                last_valid_d, last_valid_q;
  logic [SlotW-1:0]    last_d, last_q;

  // The held degree of slots i and j (0 for i == j, which no decision reads).
  function automatic logic [DegW-1:0] deg_of(int unsigned i, int unsigned j);
    return (i == j) ? '0 : deg_q[pair_idx(i, j)];
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Decision: demotion, promotion, issue
  // ---------------------------------------------------------------------------------------------

  logic [NumWarps-1:0] starved;
  logic [NumWarps-1:0] keep;
  logic [NumWarps-1:0] waiting;
  logic [NumWarps-1:0] group;
  logic [NumWarps-1:0] ready;

  always_comb begin : p_starved
    for (int unsigned i = 0; i < NumWarps; i++) begin
      starved[i] = (32'(age_q[i]) > StarveLimit);
    end
  end

  assign keep    = active_q & ~long_i;
  assign waiting = ~keep & ~long_i;

  // Promotion: at most one warp a cycle.
  logic             room;
  logic             join_valid;
  logic [SlotW-1:0] join_slot;

  always_comb begin : p_promote
    int unsigned      members;
    logic             starved_found;
    logic [ScoreW-1:0] score, best;
    members       = 0;
    starved_found = 1'b0;
    score         = '0;
    best          = '0;
    join_valid    = 1'b0;
    join_slot     = '0;
    for (int unsigned i = 0; i < NumWarps; i++) begin
      members = members + 32'(keep[i]);
    end
    room = members < MaxActive;
    for (int unsigned j = 0; j < NumWarps; j++) begin
      if (room && waiting[j] && starved[j] && !starved_found) begin
        starved_found = 1'b1;
        join_valid    = 1'b1;
        join_slot     = SlotW'(j);
      end
    end
    for (int unsigned j = 0; j < NumWarps; j++) begin
      score = '0;
      for (int unsigned i = 0; i < NumWarps; i++) begin
        if (keep[i]) begin
          score = score + ScoreW'(deg_of(i, j));
        end
      end
      if (room && waiting[j] && !starved_found && (!join_valid || score > best)) begin
        join_valid = 1'b1;
        join_slot  = SlotW'(j);
        best       = score;
      end
    end
  end

  always_comb begin : p_group
    group = keep;
    if (join_valid) begin
      group[join_slot] = 1'b1;
    end
  end

  assign ready = group & ready_i;

  // Issue: greedy, then starved, then the most shared with the warp issued last.
  logic             issue_valid;
  logic [SlotW-1:0] issue_slot;

  always_comb begin : p_issue
    logic            starved_found;
    logic [DegW-1:0] d, best;
    starved_found = 1'b0;
    d             = '0;
    best          = '0;
    issue_valid   = 1'b0;
    issue_slot    = '0;
    if (last_valid_q && ready[last_q]) begin
      issue_valid = 1'b1;
      issue_slot  = last_q;
    end else begin
      for (int unsigned j = 0; j < NumWarps; j++) begin
        if (ready[j] && starved[j] && !starved_found) begin
          starved_found = 1'b1;
          issue_valid   = 1'b1;
          issue_slot    = SlotW'(j);
        end
      end
      for (int unsigned j = 0; j < NumWarps; j++) begin
        d = last_valid_q ? deg_of(32'(last_q), j) : '0;
        if (ready[j] && !starved_found && (!issue_valid || d > best)) begin
          issue_valid = 1'b1;
          issue_slot  = SlotW'(j);
          best        = d;
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Outputs (combinational)
  // ---------------------------------------------------------------------------------------------

  assign issue_valid_o = issue_valid;
  assign issue_slot_o  = issue_slot;
  assign active_o      = group;

  // ---------------------------------------------------------------------------------------------
  // Next state: the group, the warp issued, a vector written
  // ---------------------------------------------------------------------------------------------

  always_comb begin : p_next
    logic [DegW-1:0] d;
    d            = '0;
    active_d     = group;
    last_valid_d = last_valid_q | issue_valid;
    // With one warp slot the index is always 0 (a constant synthesis removes).
    last_d       = (NumWarps > 1 && issue_valid) ? issue_slot : ((NumWarps > 1) ? last_q : '0);
    region_d     = region_q;
    sub_d        = sub_q;
    age_d        = age_q;
    deg_d        = deg_q;
    if (set_valid_i) begin
      for (int unsigned i = 0; i < NumWarps; i++) begin
        if (i == 32'(set_slot_i)) begin
          age_d[i] = '0;
        end else if (set_first_i && age_q[i] != AgeMax) begin
          age_d[i] = age_q[i] + AgeW'(1);
        end
      end
      for (int unsigned a = 0; a < NumArrays; a++) begin
        region_d[32'(set_slot_i) * NumArrays + a] = set_region_i[a];
        sub_d[32'(set_slot_i) * NumArrays + a]    = set_sub_i[a];
      end
      for (int unsigned i = 0; i < NumWarps; i++) begin
        if (i != 32'(set_slot_i)) begin
          d = '0;
          for (int unsigned a = 0; a < NumArrays; a++) begin
            if (set_region_i[a] == region_q[i * NumArrays + a]) begin
              d = d + shared(set_sub_i[a], sub_q[i * NumArrays + a]);
            end
          end
          deg_d[pair_idx(i, 32'(set_slot_i))] = d;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      region_q     <= '{default: '0};
      sub_q        <= '{default: '0};
      age_q        <= '{default: '0};
      deg_q        <= '{default: '0};
      active_q     <= '0;
      last_valid_q <= 1'b0;
      last_q       <= '0;
    end else begin
      region_q     <= region_d;
      sub_q        <= sub_d;
      age_q        <= age_d;
      deg_q        <= deg_d;
      active_q     <= active_d;
      last_valid_q <= last_valid_d;
      last_q       <= last_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------------

{% include "partials/asserts_begin.sv" %}

  `WS_ASSERT_INIT(ParamActive_A, MaxActive >= 1 && MaxActive <= NumWarps,
                  "{{ module }}: MaxActive must be in 1..NumWarps")

  `WS_ASSERT(SetSlot_A, !(set_valid_i && 32'(set_slot_i) >= NumWarps),
             "{{ module }}: a vector was written to a warp slot the unit does not have")

  `WS_ASSERT(IssueReady_A, !issue_valid_o || (ready_i[issue_slot_o] && !long_i[issue_slot_o]),
             "{{ module }}: the warp issued is not ready or waits long")

{% include "partials/asserts_end.sv" %}

endmodule : {{ module }}
