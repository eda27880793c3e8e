{% include "partials/header.sv" %}
// Observation-table (OT) address predictor -- seed 000 section III (Tripathy, Sahoo, Satpathy,
// "Multidimensional Grid Aware Address Prediction for GPGPU").
//
// The table snoops the load requests SMs send to the memory partitions (obs_*), learns per
// (PC, LEC) a reference thread block, warp and up to MaxAddrs addresses, a stride per grid
// dimension and an inter-warp stride, and answers prediction queries (pred_*) for any block and
// warp of the launched grid with equations (1a)/(1b) and (2).
//
// Timing: one observation and one query per cycle; both results are registered and appear one
// cycle later. A query sees the table as it was before the same cycle's observation. A launch
// (launch_valid_i) flushes the table, latches the grid shape and must have its cycle to itself.
// Semantics, including every ambiguity the paper leaves open, are in docs/decisions/ot.md.

{% include "partials/module_head.sv" %}

  // ---------------------------------------------------------------------------------------------
  // Derived widths: the package's values must follow from this instance's parameters
  // ---------------------------------------------------------------------------------------------

  if (NumSets != NumEntries / NumWays) begin : g_bad_num_sets
    $error("{{ module }}: the package's NumSets (%0d) does not follow from the parameters",
           NumSets);
  end
  if (SetBits != $clog2(NumSets)) begin : g_bad_set_bits
    $error("{{ module }}: the package's SetBits (%0d) does not follow from the parameters",
           SetBits);
  end
  if (SetW != ((SetBits > 0) ? SetBits : 1)) begin : g_bad_set_w
    $error("{{ module }}: the package's SetW (%0d) does not follow from the parameters",
           SetW);
  end
  if (WayBits != $clog2(NumWays)) begin : g_bad_way_bits
    $error("{{ module }}: the package's WayBits (%0d) does not follow from the parameters",
           WayBits);
  end
  if (WayW != ((WayBits > 0) ? WayBits : 1)) begin : g_bad_way_w
    $error("{{ module }}: the package's WayW (%0d) does not follow from the parameters",
           WayW);
  end
  if (PlruNodes != NumWays - 1) begin : g_bad_plru_nodes
    $error("{{ module }}: the package's PlruNodes (%0d) does not follow from the parameters",
           PlruNodes);
  end
  if (SlotW != ((NumEntries > 1) ? $clog2(NumEntries) : 1)) begin : g_bad_slot_w
    $error("{{ module }}: the package's SlotW (%0d) does not follow from the parameters",
           SlotW);
  end
  if (CountW != $clog2(MaxAddrs + 1)) begin : g_bad_count_w
    $error("{{ module }}: the package's CountW (%0d) does not follow from the parameters",
           CountW);
  end
  if (TbDiffW != TbW + 1) begin : g_bad_tb_diff_w
    $error("{{ module }}: the package's TbDiffW (%0d) does not follow from the parameters",
           TbDiffW);
  end
  if (WarpDiffW != WarpW + 1) begin : g_bad_warp_diff_w
    $error("{{ module }}: the package's WarpDiffW (%0d) does not follow from the parameters",
           WarpDiffW);
  end
  if (ProdW != ((TbDiffW > WarpDiffW) ? TbDiffW : WarpDiffW) + StrideW) begin : g_bad_prod_w
    $error("{{ module }}: the package's ProdW (%0d) does not follow from the parameters",
           ProdW);
  end
  if (CalcW != (((AddrW + 1) > ProdW) ? (AddrW + 1) : ProdW) + 3) begin : g_bad_calc_w
    $error("{{ module }}: the package's CalcW (%0d) does not follow from the parameters",
           CalcW);
  end

  // ---------------------------------------------------------------------------------------------
  // Types and helpers
  // ---------------------------------------------------------------------------------------------

  // Exact-width signed arithmetic for address differences and stride products.
  typedef logic signed [CalcW-1:0] calc_t;

  // An entry is a tag (searched by every lookup) and data (read through the selected slot); the
  // valid bit lives in valid_q so that a launch can flush in one cycle.
  typedef struct packed {
    logic [PcW-1:0]  pc;
    logic [LecW-1:0] lec;
  } tag_t;

  typedef struct packed {
    logic [NumDims-1:0][TbW-1:0]     tb;
    logic [WarpW-1:0]                warp;
    logic [CountW-1:0]               naddrs;
    logic [MaxAddrs-1:0][AddrW-1:0]  addr;
    logic [NumDims-1:0][StrideW-1:0] stride;
    logic [NumDims-1:0]              stride_known;
    logic [StrideW-1:0]              iws;
    logic                            iws_known;
    logic [CntW-1:0]                 mispredicts;
  } entry_t;

  localparam logic [CntW-1:0] CntMax = '1;

  // Set index: the PC and the LEC XOR-folded into SetBits bits.
  function automatic logic [SetW-1:0] set_index(logic [PcW-1:0] pc, logic [LecW-1:0] lec);
    logic [SetW-1:0] idx;
    idx = '0;
    if (NumSets > 1) begin
      for (int unsigned i = 0; i < PcW; i++) begin
        idx[i % SetW] = idx[i % SetW] ^ pc[i];
      end
      for (int unsigned i = 0; i < LecW; i++) begin
        idx[i % SetW] = idx[i % SetW] ^ lec[i];
      end
    end
    return idx;
  endfunction

  // Table slot (reported on upd_slot_o) of a way of a set.
  function automatic logic [SlotW-1:0] slot_of(logic [SetW-1:0] set, logic [WayW-1:0] way);
    return SlotW'(32'(set) * NumWays + 32'(way));
  endfunction

  // An entry is ready once it holds every stride the launched grid needs.
  function automatic logic is_ready(logic [NumDims-1:0] stride_known, logic iws_known,
                                    logic [NumDims-1:0][TbW-1:0] tb_last,
                                    logic [WarpW-1:0] warp_last);
    logic ready;
    ready = 1'b1;
    for (int unsigned d = 0; d < NumDims; d++) begin
      if (tb_last[d] != '0 && !stride_known[d]) begin
        ready = 1'b0;
      end
    end
    if (warp_last != '0 && !iws_known) begin
      ready = 1'b0;
    end
    return ready;
  endfunction

  function automatic calc_t signed_of(logic [StrideW-1:0] s);
    return calc_t'($signed(s));
  endfunction

  function automatic calc_t unsigned_of(logic [AddrW-1:0] a);
    return calc_t'({1'b0, a});
  endfunction

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------

  // The entries form a register file of NumEntries words (one entry each, slot = set * NumWays
  // + way) with one write port; every way of the looked-up set is read through its own port.
  // Valid bits are a separate register so that a launch can flush all of them at once.
  logic [NumWays-1:0]          valid_d [NumSets];
  logic [NumWays-1:0]          valid_q [NumSets];
  tag_t                        tag_q [NumEntries];
  entry_t                      entry_q [NumEntries];
  logic                        entry_we;
  logic [SlotW-1:0]            entry_waddr;
  tag_t                        tag_wdata;
  entry_t                      entry_wdata;
  logic [NumDims-1:0][TbW-1:0] tb_last_d, tb_last_q;
  logic [WarpW-1:0]            warp_last_d, warp_last_q;

  // Registered outputs.
  logic                             pred_valid_d, pred_valid_q;
  logic                             pred_hit_d, pred_hit_q;
  logic [CountW-1:0]                pred_count_d, pred_count_q;
  logic [MaxAddrs-1:0][AddrW-1:0]   pred_addr_d, pred_addr_q;
  logic                             upd_valid_d, upd_valid_q;
  ot_event_e                        upd_event_d, upd_event_q;
  logic [SlotW-1:0]                 upd_slot_d, upd_slot_q;
  logic                             upd_evict_d, upd_evict_q;
  logic                             upd_ready_d, upd_ready_q;

  // ---------------------------------------------------------------------------------------------
  // Observation path: lookup, allocation, update (Fig. 6 / Fig. 9 steps 1-7)
  // ---------------------------------------------------------------------------------------------

  logic                obs_do;
  logic [SetW-1:0]     obs_set;
  logic [NumWays-1:0]  obs_match;
  logic                obs_hit;
  logic [WayW-1:0]     obs_hit_way;
  logic                obs_free;
  logic [WayW-1:0]     obs_free_way;
  logic [WayW-1:0]     victim_way;
  logic [WayW-1:0]     obs_way;
  logic [SlotW-1:0]    obs_slot;
  logic                touch_valid;
  logic [SetW-1:0]     touch_set;
  logic [WayW-1:0]     touch_way;

  assign obs_do  = obs_valid_i & ~launch_valid_i;
  assign obs_set = set_index(obs_pc_i, obs_lec_i);

  // The set's tags (one per way) and valid bits. Every assignment in these loops has a constant
  // index and no condition, so synthesis reads each way once and builds one comparator per way
  // (in ws_prim_match) and nothing wider. The set's valid bits are read once (reading
  // valid_q[set][w] per way would copy the whole row per way in simulation).
  logic [NumWays-1:0] obs_valid_row;
  logic [NumWays-1:0] obs_free_vec;
  assign obs_valid_row = valid_q[obs_set];
  assign obs_free_vec  = ~obs_valid_row;

  tag_t obs_key;
  tag_t obs_tags [NumWays];
  assign obs_key = '{pc: obs_pc_i, lec: obs_lec_i};

  always_comb begin : p_obs_tags
    for (int unsigned w = 0; w < NumWays; w++) begin
      obs_tags[w] = tag_q[slot_of(obs_set, WayW'(w))];
    end
  end

  // The lowest matching way, and the lowest free way.
  {{ prim.matcher }} #(
    .N     (NumWays),
    .IdxW  (WayW),
    .tag_t (tag_t)
  ) u_obs_match (
    .valid_i (obs_valid_row),
    .tag_i   (obs_tags),
    .key_i   (obs_key),
    .match_o (obs_match),
    .hit_o   (obs_hit),
    .idx_o   (obs_hit_way)
  );

  {{ prim.first_one }} #(
    .N    (NumWays),
    .IdxW (WayW)
  ) u_obs_free (
    .in_i    (obs_free_vec),
    .found_o (obs_free),
    .idx_o   (obs_free_way)
  );

  assign obs_way  = obs_hit ? obs_hit_way : (obs_free ? obs_free_way : victim_way);
  assign obs_slot = slot_of(obs_set, obs_way);

  // The matching entry, and its offsets from the observed block and warp.
  entry_t                      obs_e;
  logic signed [TbDiffW-1:0]   obs_dtb [NumDims];
  logic signed [WarpDiffW-1:0] obs_dw;
  logic                        obs_same;
  logic [2:0]                  obs_unknowns;
  calc_t                       obs_known_sum;
  calc_t                       obs_coef;
  logic [1:0]                  obs_field;    // which dimension is unknown
  logic                        obs_field_iws; // the unknown is the inter-warp stride
  calc_t                       obs_rem;
  calc_t                       obs_coef_nz;
  calc_t                       obs_quot;
  calc_t                       obs_mod;
  logic                        obs_fits;
  logic                        obs_predicted;
  logic                        obs_dup;
  entry_t                      obs_new;
  ot_event_e                   obs_event;

  assign obs_e = entry_q[obs_slot];

  always_comb begin : p_obs_offsets
    obs_same = 1'b1;
    for (int unsigned d = 0; d < NumDims; d++) begin
      obs_dtb[d] = $signed({1'b0, obs_tb_i[d]}) - $signed({1'b0, obs_e.tb[d]});
      if (obs_dtb[d] != '0) begin
        obs_same = 1'b0;
      end
    end
    obs_dw = $signed({1'b0, obs_warp_i}) - $signed({1'b0, obs_e.warp});
    if (obs_dw != '0) begin
      obs_same = 1'b0;
    end
  end

  // Sum of the known terms; count and locate the unknown ones.
  always_comb begin : p_obs_terms
    obs_unknowns  = '0;
    obs_known_sum = '0;
    obs_coef      = '0;
    obs_field     = '0;
    obs_field_iws = 1'b0;
    for (int unsigned d = 0; d < NumDims; d++) begin
      if (obs_dtb[d] != '0) begin
        if (obs_e.stride_known[d]) begin
          obs_known_sum = obs_known_sum + calc_t'(obs_dtb[d]) * signed_of(obs_e.stride[d]);
        end else begin
          obs_unknowns = obs_unknowns + 3'd1;
          obs_coef     = calc_t'(obs_dtb[d]);
          obs_field    = 2'(d);
        end
      end
    end
    if (obs_dw != '0) begin
      if (obs_e.iws_known) begin
        obs_known_sum = obs_known_sum + calc_t'(obs_dw) * signed_of(obs_e.iws);
      end else begin
        obs_unknowns  = obs_unknowns + 3'd1;
        obs_coef      = calc_t'(obs_dw);
        obs_field_iws = 1'b1;
      end
    end
  end

  // Solve for the single unknown against the first stored address (exact division only).
  assign obs_rem     = unsigned_of(obs_addr_i) - unsigned_of(obs_e.addr[0]) - obs_known_sum;
  assign obs_coef_nz = (obs_coef == '0) ? calc_t'(1) : obs_coef;
  assign obs_quot    = obs_rem / obs_coef_nz;
  assign obs_mod     = obs_rem % obs_coef_nz;
  assign obs_fits    = (obs_quot[CalcW-1:StrideW-1] == '0) || (obs_quot[CalcW-1:StrideW-1] == '1);

  // With every stride known, the entry predicts obs_addr_i iff some stored address, shifted by
  // the known offset, equals it; the same test on the reference warp finds duplicates.
  always_comb begin : p_obs_check
    obs_predicted = 1'b0;
    obs_dup       = 1'b0;
    for (int unsigned i = 0; i < MaxAddrs; i++) begin
      if (CountW'(i) < obs_e.naddrs) begin
        if (AddrW'(unsigned_of(obs_e.addr[i]) + obs_known_sum) == obs_addr_i) begin
          obs_predicted = 1'b1;
        end
        if (obs_e.addr[i] == obs_addr_i) begin
          obs_dup = 1'b1;
        end
      end
    end
  end

  always_comb begin : p_obs_update
    obs_new   = obs_e;
    obs_event = OtEvIgnore;
    if (!obs_hit) begin
      // Steps 1 and 6: allocate.
      obs_new              = '0;
      obs_new.tb           = obs_tb_i;
      obs_new.warp         = obs_warp_i;
      obs_new.naddrs       = CountW'(1);
      obs_new.addr[0]      = obs_addr_i;
      obs_event            = OtEvAlloc;
    end else if (obs_same) begin
      // Step 2: another request of the reference warp.
      if (!obs_dup && obs_e.naddrs != CountW'(MaxAddrs)) begin
        for (int unsigned i = 0; i < MaxAddrs; i++) begin
          if (CountW'(i) == obs_e.naddrs) begin
            obs_new.addr[i] = obs_addr_i;
          end
        end
        obs_new.naddrs = obs_e.naddrs + CountW'(1);
        obs_event      = OtEvAppend;
      end
    end else if (obs_unknowns == 3'd0) begin
      // Every stride involved is known: the request checks the entry's prediction.
      if (obs_predicted) begin
        obs_event = OtEvHit;
      end else begin
        obs_event = OtEvMispredict;
        if (obs_e.mispredicts != CntMax) begin
          obs_new.mispredicts = obs_e.mispredicts + CntW'(1);
        end
      end
    end else if (obs_unknowns == 3'd1 && obs_mod == '0 && obs_fits) begin
      // Steps 3, 4, 5 and 7: learn the one unknown stride.
      obs_event = OtEvLearn;
      if (obs_field_iws) begin
        obs_new.iws       = StrideW'(obs_quot);
        obs_new.iws_known = 1'b1;
      end else begin
        for (int unsigned d = 0; d < NumDims; d++) begin
          if (2'(d) == obs_field) begin
            obs_new.stride[d]       = StrideW'(obs_quot);
            obs_new.stride_known[d] = 1'b1;
          end
        end
      end
    end
  end

  assign entry_we    = obs_do;
  assign entry_waddr = obs_slot;
  assign tag_wdata   = {obs_pc_i, obs_lec_i};
  assign entry_wdata = obs_new;

  assign touch_valid = obs_do;
  assign touch_set   = obs_set;
  assign touch_way   = obs_way;

  // ---------------------------------------------------------------------------------------------
  // Replacement
  // ---------------------------------------------------------------------------------------------

  if (NumWays == 1) begin : g_repl_none
    assign victim_way = '0;
    logic unused_touch;
    assign unused_touch = ^{touch_valid, touch_set, touch_way};
  end else if (Replacement == OtReplLru) begin : g_repl_lru
    // True LRU: each way keeps its rank (age); 0 is most recent, NumWays-1 the victim. The
    // lookup picks a free way itself, so every way counts as valid here.
    {{ prim.rank_lru }} #(
      .NumSets (NumSets),
      .NumWays (NumWays),
      .SetW    (SetW),
      .WayW    (WayW)
    ) u_lru (
      .clk_i,
      .rst_ni,
      .touch_i     (touch_valid),
      .touch_set_i (touch_set),
      .touch_way_i (touch_way),
      .set_i       (obs_set),
      .valid_i     ('1),
      .victim_o    (victim_way)
    );
  end else begin : g_repl_plru
    // Tree pseudo-LRU: NumWays-1 node bits per set in heap order; 0 sends the victim left.
    logic [PlruNodes-1:0] plru_d [NumSets];
    logic [PlruNodes-1:0] plru_q [NumSets];

    always_comb begin : p_plru_victim
      logic [WayBits-1:0] node;
      logic             right;
      victim_way = '0;
      node       = '0;
      for (int unsigned l = 0; l < WayBits; l++) begin
        right      = plru_q[obs_set][node];
        victim_way = (victim_way << 1) | WayW'(right);
        node       = WayBits'(2 * 32'(node) + 1 + 32'(right));
      end
    end

    always_comb begin : p_plru_update
      logic [WayBits-1:0] node;
      logic             right;
      plru_d = plru_q;
      node   = '0;
      right  = 1'b0;
      if (touch_valid) begin
        for (int unsigned l = 0; l < WayBits; l++) begin
          right                   = touch_way[WayBits - 1 - l];
          plru_d[touch_set][node] = ~right;
          node                    = WayBits'(2 * 32'(node) + 1 + 32'(right));
        end
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_plru_regs
      if (!rst_ni) begin
        plru_q <= '{default: '0};
      end else begin
        plru_q <= plru_d;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Prediction path: equations (1a)/(1b) and (2)
  // ---------------------------------------------------------------------------------------------

  logic [SetW-1:0]     pred_set;
  logic [NumWays-1:0]  pred_match;
  logic                pred_found;
  logic [WayW-1:0]     pred_way;
  entry_t              pred_e;
  calc_t               pred_off;
  logic                pred_ok;

  assign pred_set = set_index(pred_pc_i, pred_lec_i);

  logic [NumWays-1:0] pred_valid_row;
  assign pred_valid_row = valid_q[pred_set];

  tag_t pred_key;
  tag_t pred_tags [NumWays];
  assign pred_key = '{pc: pred_pc_i, lec: pred_lec_i};

  always_comb begin : p_pred_tags
    for (int unsigned w = 0; w < NumWays; w++) begin
      pred_tags[w] = tag_q[slot_of(pred_set, WayW'(w))];
    end
  end

  {{ prim.matcher }} #(
    .N     (NumWays),
    .IdxW  (WayW),
    .tag_t (tag_t)
  ) u_pred_match (
    .valid_i (pred_valid_row),
    .tag_i   (pred_tags),
    .key_i   (pred_key),
    .match_o (pred_match),
    .hit_o   (pred_found),
    .idx_o   (pred_way)
  );

  assign pred_e = entry_q[slot_of(pred_set, pred_way)];

  always_comb begin : p_pred_offset
    logic signed [TbDiffW-1:0]   dtb;
    logic signed [WarpDiffW-1:0] dw;
    pred_off = '0;
    for (int unsigned d = 0; d < NumDims; d++) begin
      dtb      = $signed({1'b0, pred_tb_i[d]}) - $signed({1'b0, pred_e.tb[d]});
      pred_off = pred_off + calc_t'(dtb) * signed_of(pred_e.stride[d]);
    end
    dw       = $signed({1'b0, pred_warp_i}) - $signed({1'b0, pred_e.warp});
    pred_off = pred_off + calc_t'(dw) * signed_of(pred_e.iws);
  end

  assign pred_ok = pred_valid_i && !launch_valid_i && pred_found &&
                   is_ready(pred_e.stride_known, pred_e.iws_known, tb_last_q, warp_last_q) &&
                   (32'(pred_e.mispredicts) <= Threshold);

  always_comb begin : p_pred_out
    pred_valid_d = pred_valid_i & ~launch_valid_i;
    pred_hit_d   = pred_ok;
    pred_count_d = pred_ok ? pred_e.naddrs : '0;
    pred_addr_d  = '0;
    for (int unsigned i = 0; i < MaxAddrs; i++) begin
      if (pred_ok && CountW'(i) < pred_e.naddrs) begin
        pred_addr_d[i] = AddrW'(unsigned_of(pred_e.addr[i]) + pred_off);
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Next state
  // ---------------------------------------------------------------------------------------------

  always_comb begin : p_next
    valid_d     = valid_q;
    tb_last_d   = tb_last_q;
    warp_last_d = warp_last_q;
    if (launch_valid_i) begin
      valid_d     = '{default: '0};
      tb_last_d   = launch_tb_last_i;
      warp_last_d = launch_warp_last_i;
    end else if (obs_do) begin
      valid_d[obs_set][obs_way] = 1'b1;
    end
    upd_valid_d = obs_do;
    upd_event_d = obs_do ? obs_event : OtEvNone;
    upd_slot_d  = obs_do ? obs_slot : '0;
    upd_evict_d = obs_do && !obs_hit && !obs_free;
    upd_ready_d = obs_do &&
                  is_ready(obs_new.stride_known, obs_new.iws_known, tb_last_q, warp_last_q);
  end

  always_ff @(posedge clk_i) begin : p_entry_mem
    if (entry_we) begin
      tag_q[entry_waddr]   <= tag_wdata;
      entry_q[entry_waddr] <= entry_wdata;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      valid_q      <= '{default: '0};
      tb_last_q    <= '1;
      warp_last_q  <= '1;
      pred_valid_q <= 1'b0;
      pred_hit_q   <= 1'b0;
      pred_count_q <= '0;
      pred_addr_q  <= '0;
      upd_valid_q  <= 1'b0;
      upd_event_q  <= OtEvNone;
      upd_slot_q   <= '0;
      upd_evict_q  <= 1'b0;
      upd_ready_q  <= 1'b0;
    end else begin
      valid_q      <= valid_d;
      tb_last_q    <= tb_last_d;
      warp_last_q  <= warp_last_d;
      pred_valid_q <= pred_valid_d;
      pred_hit_q   <= pred_hit_d;
      pred_count_q <= pred_count_d;
      pred_addr_q  <= pred_addr_d;
      upd_valid_q  <= upd_valid_d;
      upd_event_q  <= upd_event_d;
      upd_slot_q   <= upd_slot_d;
      upd_evict_q  <= upd_evict_d;
      upd_ready_q  <= upd_ready_d;
    end
  end

  assign pred_valid_o = pred_valid_q;
  assign pred_hit_o   = pred_hit_q;
  assign pred_count_o = pred_count_q;
  assign pred_addr_o  = pred_addr_q;
  assign upd_valid_o  = upd_valid_q;
  assign upd_event_o  = upd_event_q;
  assign upd_slot_o   = upd_slot_q;
  assign upd_evict_o  = upd_evict_q;
  assign upd_ready_o  = upd_ready_q;

  // ---------------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------------

{% include "partials/asserts_begin.sv" %}

  // Parameter legality, checked at elaboration.
  `WS_ASSERT_INIT(ParamWaysPow2_A, NumWays > 0 && (NumWays & (NumWays - 1)) == 0,
                  "{{ module }}: NumWays must be a power of two")
  `WS_ASSERT_INIT(ParamWaysDivide_A, NumEntries % NumWays == 0,
                  "{{ module }}: NumWays must divide NumEntries")
  `WS_ASSERT_INIT(ParamAddrs_A, MaxAddrs >= 1 && MaxAddrs <= 4,
                  "{{ module }}: MaxAddrs must be 1 to 4")
  `WS_ASSERT_INIT(ParamDims_A, NumDims >= 1 && NumDims <= 3,
                  "{{ module }}: NumDims must be 1 to 3")
  `WS_ASSERT_INIT(ParamThreshold_A, Threshold < (2 ** CntW) - 1,
                  "{{ module }}: the mispredict counter cannot exceed Threshold")

  // Interface rules: a launch has its cycle to itself; requests and queries name a block and a
  // warp of the launched grid. (Implications are written as `!a || b`: the slang front-end of
  // Yosys does not accept `|->`.)
  logic obs_tb_in_grid, pred_tb_in_grid;
  always_comb begin : p_in_grid
    obs_tb_in_grid  = 1'b1;
    pred_tb_in_grid = 1'b1;
    for (int unsigned d = 0; d < NumDims; d++) begin
      if (obs_tb_i[d] > tb_last_q[d]) begin
        obs_tb_in_grid = 1'b0;
      end
      if (pred_tb_i[d] > tb_last_q[d]) begin
        pred_tb_in_grid = 1'b0;
      end
    end
  end

  `WS_ASSERT(LaunchAlone_A, !launch_valid_i || !(obs_valid_i || pred_valid_i),
             "{{ module }}: launch_valid_i must have its cycle to itself")
  `WS_ASSERT(ObsTbInGrid_A, !obs_valid_i || obs_tb_in_grid,
             "{{ module }}: obs_tb_i lies outside the launched grid")
  `WS_ASSERT(ObsWarpInBlock_A, !obs_valid_i || obs_warp_i <= warp_last_q,
             "{{ module }}: obs_warp_i lies outside the launched block")
  `WS_ASSERT(PredTbInGrid_A, !pred_valid_i || pred_tb_in_grid,
             "{{ module }}: pred_tb_i lies outside the launched grid")
  `WS_ASSERT(PredWarpInBlock_A, !pred_valid_i || pred_warp_i <= warp_last_q,
             "{{ module }}: pred_warp_i lies outside the launched block")
  // Invariant: a (PC, LEC) pair is held by at most one entry.
  `WS_ASSERT(ObsOneMatch_A, $onehot0(obs_match),
             "{{ module }}: two entries hold the same (PC, LEC)")
  `WS_ASSERT(PredOneMatch_A, $onehot0(pred_match),
             "{{ module }}: two entries hold the same (PC, LEC)")

{% include "partials/asserts_end.sv" %}

endmodule : {{ module }}
