{% include "partials/header.sv" %}
// MT-HWP prefetch engine of one SM -- seed 001 (Lee et al., "Many-Thread Aware Prefetching
// Mechanisms for GPGPU Applications", MICRO 2010), sections III.B and V, Table I, Table VI.
//
// Three fully associative tables (looked up by ws_prim_match) with true LRU (ws_prim_rank_lru:
// per-entry ranks, 0 = most recent):
//   PWS  per-warp strides, tagged by {PC, warp id}: train, last address, stride.
//   GS   promoted strides, tagged by PC.
//   IP   inter-thread strides, tagged by PC: stride, train, the last two warps' ids and addresses.
// An access taken at an edge looks up GS and IP by PC in parallel (IP trains on it). A GS hit
// predicts with the GS stride (GS first on a double hit); else an IP entry that this access,
// from a warp other than the last two, trains with the same non-zero stride for the second time
// in a row predicts with that stride. With neither, the PWS table is looked up at the next edge
// (acc_ready_o low meanwhile): the entry's difference trains it (a repeated non-zero stride
// sets train; another clears it and becomes the stride), a trained entry predicts, and when
// PromoteCount trained entries of the PC hold that stride and GS lacks the PC it is promoted.
// A prediction issues Degree prefetches at addr + stride * (Distance + k) unless the throttle
// drops it (the first thr_degree of every five predictions).
// The throttle counts useful prefetches, early evictions, merges and requests per Period cycles;
// at a period's last edge it classifies the early-eviction rate (eq. 5, 7) and starts a
// MergeFracW-step divider for the merge ratio (eq. 6); at the edge after its last step the
// ratio is averaged with the previous one (eq. 8) and the degree updated by Table I. With
// PwsOnly the GS and IP tables are left out (StridePC). Semantics: docs/decisions/mthwp.md.

{% include "partials/module_head.sv" %}

  // ---------------------------------------------------------------------------------------------
  // Derived widths: the package's values must follow from this instance's parameters
  // ---------------------------------------------------------------------------------------------

  if (PwsRankW != $clog2(NumPws)) begin : g_bad_pws_rank_w
    $error("{{ module }}: the package's PwsRankW (%0d) does not follow from the parameters",
           PwsRankW);
  end
  if (GsRankW != $clog2(NumGs)) begin : g_bad_gs_rank_w
    $error("{{ module }}: the package's GsRankW (%0d) does not follow from the parameters",
           GsRankW);
  end
  if (IpRankW != $clog2(NumIp)) begin : g_bad_ip_rank_w
    $error("{{ module }}: the package's IpRankW (%0d) does not follow from the parameters",
           IpRankW);
  end
  if (CntW != $clog2(Period + 1)) begin : g_bad_cnt_w
    $error("{{ module }}: the package's CntW (%0d) does not follow from the parameters", CntW);
  end
  if (PerW != $clog2(Period)) begin : g_bad_per_w
    $error("{{ module }}: the package's PerW (%0d) does not follow from the parameters", PerW);
  end
  if (PfCntW != $clog2(Degree + 1)) begin : g_bad_pf_cnt_w
    $error("{{ module }}: the package's PfCntW (%0d) does not follow from the parameters",
           PfCntW);
  end
  if (MergeW != MergeFracW + 1) begin : g_bad_merge_w
    $error("{{ module }}: the package's MergeW (%0d) does not follow from the parameters",
           MergeW);
  end
  if (MergeHighThr != (MergeHighPm * (2 ** MergeFracW)) / 1000) begin : g_bad_merge_high_thr
    $error("{{ module }}: the package's MergeHighThr (%0d) does not follow from the parameters",
           MergeHighThr);
  end
  if (ThrW != 3) begin : g_bad_thr_w
    $error("{{ module }}: the package's ThrW (%0d) does not follow from the parameters", ThrW);
  end
  if (DivCntW != $clog2(MergeFracW + 2)) begin : g_bad_div_cnt_w
    $error("{{ module }}: the package's DivCntW (%0d) does not follow from the parameters",
           DivCntW);
  end
  if (MulW != CntW + 10) begin : g_bad_mul_w
    $error("{{ module }}: the package's MulW (%0d) does not follow from the parameters", MulW);
  end
  if (MergeOne != 2 ** MergeFracW) begin : g_bad_merge_one
    $error("{{ module }}: the package's MergeOne (%0d) does not follow from the parameters",
           MergeOne);
  end

  localparam logic [ThrW-1:0] ThrMax = ThrW'(5);

  typedef struct packed {
    logic [PcW-1:0]     pc;
    logic [WidW-1:0]    wid;
    logic               train;
    logic [AddrW-1:0]   last;
    logic [StrideW-1:0] stride;
  } pws_entry_t;

  typedef struct packed {
    logic [PcW-1:0]     pc;
    logic [WidW-1:0]    wid;
    logic [AddrW-1:0]   addr;
  } acc_t;

  // What a PWS entry is looked up by.
  typedef struct packed {
    logic [PcW-1:0]     pc;
    logic [WidW-1:0]    wid;
  } pws_tag_t;

  // The difference `d` fits a StrideW-bit signed stride.
  function automatic logic fits(logic [AddrW-1:0] d);
    logic ok;
    ok = 1'b1;
    for (int unsigned b = 0; b < AddrW; b++) begin
      if (b + 1 >= StrideW && d[b] != d[AddrW-1]) begin
        ok = 1'b0;
      end
    end
    return ok;
  endfunction

  // Strides from the access to its k-th prefetch.
  function automatic logic [31:0] steps(int unsigned k);
    return 32'(Distance + k);
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Stage 1: the taken access (GS and IP lookup); stage 2: the pending access (PWS lookup)
  // ---------------------------------------------------------------------------------------------

  logic pend_valid_d, pend_valid_q;
  acc_t pend_d, pend_q;
  acc_t acc;
  logic take;     // an access is taken at this edge (GS and IP lookup)
  logic do_pws;   // the pending access is looked up in the PWS table at this edge

  assign acc    = '{pc: acc_pc_i, wid: acc_wid_i, addr: acc_addr_i};
  assign take   = acc_valid_i & ~pend_valid_q & ~launch_i;
  assign do_pws = pend_valid_q & ~launch_i;

  // From the GS and IP tables (constant 0 without them).
  logic               s1_gs_hit;
  logic [StrideW-1:0] s1_gs_stride;
  logic               s1_ip_hit;
  logic [StrideW-1:0] s1_ip_stride;
  logic               s2_gs_has;    // the GS table already holds the pending access's PC
  logic               s2_promote;   // promote the pending access's PC and stride at this edge
  logic [StrideW-1:0] s2_stride;
  logic               gs_one_match; // no two GS entries match the taken access's PC
  logic               ip_one_match; // no two IP entries match it

  // ---------------------------------------------------------------------------------------------
  // PWS table
  // ---------------------------------------------------------------------------------------------

  logic [NumPws-1:0]     pws_valid_d, pws_valid_q;
  pws_entry_t            pws_d [NumPws];
  pws_entry_t            pws_q [NumPws];

  logic [NumPws-1:0]     pws_match;
  logic                  pws_hit;
  logic [PwsRankW-1:0]   pws_hit_idx;
  logic [PwsRankW-1:0]   pws_victim;
  logic [PwsRankW-1:0]   pws_widx;
  logic [AddrW-1:0]      pws_old_last;
  logic [StrideW-1:0]    pws_old_stride;
  pws_entry_t            pws_new;
  logic [AddrW-1:0]      pws_diff;
  logic                  pws_fits;

  // Lookup by the pending access's {PC, warp id}: the lowest matching entry.
  pws_tag_t pws_key;
  pws_tag_t pws_tags [NumPws];
  assign pws_key = '{pc: pend_q.pc, wid: pend_q.wid};
  always_comb begin : p_pws_tags
    for (int unsigned i = 0; i < NumPws; i++) begin
      pws_tags[i] = '{pc: pws_q[i].pc, wid: pws_q[i].wid};
    end
  end

  {{ prim.matcher }} #(
    .N     (NumPws),
    .IdxW  (PwsRankW),
    .tag_t (pws_tag_t)
  ) u_pws_match (
    .valid_i (pws_valid_q),
    .tag_i   (pws_tags),
    .key_i   (pws_key),
    .match_o (pws_match),
    .hit_o   (pws_hit),
    .idx_o   (pws_hit_idx)
  );

  // True LRU; the victim is the first invalid entry, else the least recently used.
  {{ prim.rank_lru }} #(
    .NumSets (1),
    .NumWays (NumPws),
    .SetW    (1),
    .WayW    (PwsRankW)
  ) u_pws_lru (
    .clk_i,
    .rst_ni,
    .touch_i     (do_pws),
    .touch_set_i (1'b0),
    .touch_way_i (pws_widx),
    .set_i       (1'b0),
    .valid_i     (pws_valid_q),
    .victim_o    (pws_victim)
  );

  assign pws_widx = pws_hit ? pws_hit_idx : pws_victim;
  assign pws_old_last   = pws_q[pws_hit_idx].last;
  assign pws_old_stride = pws_q[pws_hit_idx].stride;
  assign pws_diff       = pend_q.addr - pws_old_last;
  assign pws_fits = fits(pws_diff);

  always_comb begin : p_pws_train
    pws_new.pc   = pend_q.pc;
    pws_new.wid  = pend_q.wid;
    pws_new.last = pend_q.addr;
    if (!pws_hit) begin
      pws_new.train  = 1'b0;
      pws_new.stride = '0;
    end else if (pws_fits && pws_diff != '0 && StrideW'($signed(pws_diff)) == pws_old_stride) begin
      pws_new.train  = 1'b1;
      pws_new.stride = pws_old_stride;
    end else begin
      pws_new.train  = 1'b0;
      pws_new.stride = pws_fits ? StrideW'($signed(pws_diff)) : '0;
    end
  end

  // Promotion: trained entries of the PC holding the new stride, after this edge's write.
  logic [NumPws-1:0] pws_agree;
  logic [31:0]       pws_agree_cnt;
  always_comb begin : p_pws_agree
    pws_agree_cnt = '0;
    for (int unsigned i = 0; i < NumPws; i++) begin
      if (PwsRankW'(i) == pws_widx) begin
        pws_agree[i] = pws_new.train;
      end else begin
        pws_agree[i] = pws_valid_q[i] && pws_q[i].train && pws_q[i].pc == pend_q.pc &&
                       pws_q[i].stride == pws_new.stride;
      end
      pws_agree_cnt = pws_agree_cnt + 32'(pws_agree[i]);
    end
  end

  assign s2_stride  = pws_new.stride;
  assign s2_promote = do_pws && pws_new.train && !s2_gs_has && pws_agree_cnt >= PromoteCount;

  always_comb begin : p_pws_next
    pws_valid_d = pws_valid_q;
    for (int unsigned i = 0; i < NumPws; i++) begin
      pws_d[i] = pws_q[i];
    end
    if (launch_i) begin
      pws_valid_d = '0;
    end else if (do_pws) begin
      pws_valid_d[pws_widx] = 1'b1;
      pws_d[pws_widx]       = pws_new;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // GS and IP tables (MT-HWP; left out for StridePC)
  // ---------------------------------------------------------------------------------------------

  if (PwsOnly == 0) begin : g_global
    typedef struct packed {
      logic [PcW-1:0]     pc;
      logic [StrideW-1:0] stride;
    } gs_entry_t;

    typedef struct packed {
      logic [PcW-1:0]          pc;
      logic [StrideW-1:0]      stride;
      logic                    train;
      logic [1:0][WidW-1:0]    wid;
      logic [1:0][AddrW-1:0]   addr;
    } ip_entry_t;

    logic [NumGs-1:0]     gs_valid_d, gs_valid_q;
    gs_entry_t            gs_d [NumGs];
    gs_entry_t            gs_q [NumGs];
    logic [NumIp-1:0]     ip_valid_d, ip_valid_q;
    ip_entry_t            ip_d [NumIp];
    ip_entry_t            ip_q [NumIp];

    // GS: lookup by the taken access's PC (stage 1) and by the pending one's (promotion).
    logic [PcW-1:0]       gs_tags [NumGs];
    logic [NumGs-1:0]     gs_match;
    logic [GsRankW-1:0]   gs_hit_idx, gs_victim;
    logic [NumGs-1:0]     unused_gs_pend_match;
    logic [GsRankW-1:0]   unused_gs_pend_idx;
    always_comb begin : p_gs_tags
      for (int unsigned i = 0; i < NumGs; i++) begin
        gs_tags[i] = gs_q[i].pc;
      end
    end

    {{ prim.matcher }} #(
      .N     (NumGs),
      .IdxW  (GsRankW),
      .tag_t (logic [PcW-1:0])
    ) u_gs_match (
      .valid_i (gs_valid_q),
      .tag_i   (gs_tags),
      .key_i   (acc.pc),
      .match_o (gs_match),
      .hit_o   (s1_gs_hit),
      .idx_o   (gs_hit_idx)
    );

    {{ prim.matcher }} #(
      .N     (NumGs),
      .IdxW  (GsRankW),
      .tag_t (logic [PcW-1:0])
    ) u_gs_pend_match (
      .valid_i (gs_valid_q),
      .tag_i   (gs_tags),
      .key_i   (pend_q.pc),
      .match_o (unused_gs_pend_match),
      .hit_o   (s2_gs_has),
      .idx_o   (unused_gs_pend_idx)
    );

    assign s1_gs_stride = gs_q[gs_hit_idx].stride;

    logic               gs_touch;
    logic [GsRankW-1:0] gs_tidx;
    assign gs_touch = (take && s1_gs_hit) || s2_promote;
    assign gs_tidx  = s2_promote ? gs_victim : gs_hit_idx;

    {{ prim.rank_lru }} #(
      .NumSets (1),
      .NumWays (NumGs),
      .SetW    (1),
      .WayW    (GsRankW)
    ) u_gs_lru (
      .clk_i,
      .rst_ni,
      .touch_i     (gs_touch),
      .touch_set_i (1'b0),
      .touch_way_i (gs_tidx),
      .set_i       (1'b0),
      .valid_i     (gs_valid_q),
      .victim_o    (gs_victim)
    );

    always_comb begin : p_gs_next
      gs_valid_d = gs_valid_q;
      for (int unsigned i = 0; i < NumGs; i++) begin
        gs_d[i] = gs_q[i];
      end
      if (launch_i) begin
        gs_valid_d = '0;
      end else if (s2_promote) begin
        gs_valid_d[gs_victim] = 1'b1;
        gs_d[gs_victim]       = '{pc: pend_q.pc, stride: s2_stride};
      end
    end

    // IP: lookup and training by the taken access.
    logic [NumIp-1:0]     ip_match;
    logic                 ip_found;
    logic [IpRankW-1:0]   ip_hit_idx, ip_victim, ip_widx;
    ip_entry_t            ip_old, ip_new;
    logic                 ip_new_warp;
    logic [AddrW-1:0]     ip_diff;
    logic                 ip_fits;
    logic                 ip_train;
    logic [PcW-1:0]       ip_tags [NumIp];
    always_comb begin : p_ip_tags
      for (int unsigned i = 0; i < NumIp; i++) begin
        ip_tags[i] = ip_q[i].pc;
      end
    end

    {{ prim.matcher }} #(
      .N     (NumIp),
      .IdxW  (IpRankW),
      .tag_t (logic [PcW-1:0])
    ) u_ip_match (
      .valid_i (ip_valid_q),
      .tag_i   (ip_tags),
      .key_i   (acc.pc),
      .match_o (ip_match),
      .hit_o   (ip_found),
      .idx_o   (ip_hit_idx)
    );

    {{ prim.rank_lru }} #(
      .NumSets (1),
      .NumWays (NumIp),
      .SetW    (1),
      .WayW    (IpRankW)
    ) u_ip_lru (
      .clk_i,
      .rst_ni,
      .touch_i     (take),
      .touch_set_i (1'b0),
      .touch_way_i (ip_widx),
      .set_i       (1'b0),
      .valid_i     (ip_valid_q),
      .victim_o    (ip_victim)
    );

    assign ip_old      = ip_q[ip_hit_idx];
    assign ip_new_warp = acc.wid != ip_old.wid[0] && acc.wid != ip_old.wid[1];
    assign ip_diff     = acc.addr - ip_old.addr[0];
    assign ip_fits     = fits(ip_diff);
    // Three warps in a row with the same non-zero difference.
    assign ip_train    = ip_fits && ip_diff != '0 && ip_diff == ip_old.addr[0] - ip_old.addr[1];
    assign ip_widx     = ip_found ? ip_hit_idx : ip_victim;

    always_comb begin : p_ip_train
      ip_new = ip_old;
      if (!ip_found) begin
        ip_new.pc     = acc.pc;
        ip_new.stride = '0;
        ip_new.train  = 1'b0;
        ip_new.wid    = {acc.wid, acc.wid};
        ip_new.addr   = {acc.addr, acc.addr};
      end else if (ip_new_warp) begin
        ip_new.stride = ip_fits ? StrideW'($signed(ip_diff)) : '0;
        ip_new.train  = ip_train;
        // Newest first: element 0 is this access, element 1 the one before.
        ip_new.wid    = {ip_old.wid[0], acc.wid};
        ip_new.addr   = {ip_old.addr[0], acc.addr};
      end
    end

    assign s1_ip_hit    = ip_found && ip_new_warp && ip_train;
    assign s1_ip_stride = ip_new.stride;

    always_comb begin : p_ip_next
      ip_valid_d = ip_valid_q;
      for (int unsigned i = 0; i < NumIp; i++) begin
        ip_d[i] = ip_q[i];
      end
      if (launch_i) begin
        ip_valid_d = '0;
      end else if (take) begin
        ip_valid_d[ip_widx] = 1'b1;
        ip_d[ip_widx]       = ip_new;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_global_regs
      if (!rst_ni) begin
        gs_valid_q <= '0;
        gs_q       <= '{default: '0};
        ip_valid_q <= '0;
        ip_q       <= '{default: '0};
      end else begin
        gs_valid_q <= gs_valid_d;
        gs_q       <= gs_d;
        ip_valid_q <= ip_valid_d;
        ip_q       <= ip_d;
      end
    end

    // For the assertions: a PC is held by at most one entry of each table.
    assign gs_one_match = $onehot0(gs_match);
    assign ip_one_match = $onehot0(ip_match);
  end else begin : g_pws_only
    assign s1_gs_hit    = 1'b0;
    assign s1_gs_stride = '0;
    assign s1_ip_hit    = 1'b0;
    assign s1_ip_stride = '0;
    assign s2_gs_has    = 1'b1;
    assign gs_one_match = 1'b1;
    assign ip_one_match = 1'b1;
    logic unused_s2_stride;
    assign unused_s2_stride = ^s2_stride;
  end

  // ---------------------------------------------------------------------------------------------
  // The finished lookup: source, throttle, prefetch addresses
  // ---------------------------------------------------------------------------------------------

  logic               em_valid;
  pf_src_e            em_src;
  logic [StrideW-1:0] em_stride;
  logic [AddrW-1:0]   em_base;
  logic               em_predict;
  logic               em_drop;
  logic [ThrW-1:0]    degree;      // the throttle degree (0 without throttling)

  always_comb begin : p_emit
    em_valid  = 1'b0;
    em_src    = PfSrcNone;
    em_stride = '0;
    em_base   = acc.addr;
    if (launch_i) begin
      em_valid = pend_valid_q;
    end else if (do_pws) begin
      em_valid  = 1'b1;
      em_base   = pend_q.addr;
      em_src    = pws_new.train ? PfSrcPws : PfSrcNone;
      em_stride = pws_new.stride;
    end else if (take && s1_gs_hit) begin
      em_valid  = 1'b1;
      em_src    = PfSrcGs;
      em_stride = s1_gs_stride;
    end else if (take && s1_ip_hit) begin
      em_valid  = 1'b1;
      em_src    = PfSrcIp;
      em_stride = s1_ip_stride;
    end
  end

  assign em_predict = em_src != PfSrcNone;

  // Pipeline and registered outputs.
  logic                          pf_valid_d, pf_valid_q;
  pf_src_e                       pf_src_d, pf_src_q;
  logic                          pf_drop_d, pf_drop_q;
  logic                          pf_issue_d, pf_issue_q;   // Degree prefetches issued
  logic [Degree-1:0][AddrW-1:0]  pf_addr_d, pf_addr_q;
  logic                          pf_promote_d, pf_promote_q;

  always_comb begin : p_outputs
    pend_valid_d = pend_valid_q;
    pend_d       = pend_q;
    if (launch_i || do_pws) begin
      pend_valid_d = 1'b0;
    end else if (take && !s1_gs_hit && !s1_ip_hit) begin
      pend_valid_d = 1'b1;
      pend_d       = acc;
    end
    pf_valid_d   = em_valid;
    pf_src_d     = em_src;
    pf_drop_d    = em_drop;
    pf_promote_d = s2_promote;
    pf_issue_d   = 1'b0;
    pf_addr_d    = '0;
    if (em_predict && !em_drop) begin
      pf_issue_d = 1'b1;
      for (int unsigned k = 0; k < Degree; k++) begin
        pf_addr_d[k] = em_base + AddrW'($signed(em_stride)) * AddrW'(steps(k));
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Adaptive throttle (section V)
  // ---------------------------------------------------------------------------------------------

  logic               thr_update;
  logic [MergeW-1:0]  thr_merge;

  if (Throttle != 0) begin : g_throttle
    logic [ThrW-1:0]       degree_d, degree_q;
    logic [2:0]            drop_cnt_d, drop_cnt_q;
    logic [MergeW-1:0]     merge_d, merge_q;
    logic [PerW-1:0]       per_d, per_q;
    logic [CntW-1:0]       useful_d, useful_q, early_d, early_q;
    logic [CntW-1:0]       merges_d, merges_q, requests_d, requests_q;
    // The period's early-eviction rate: high, low (neither: medium). Two flags rather than an
    // enumeration, which synthesis would recode as a one-hot state machine.
    logic                  early_high_d, early_high_q, early_low_d, early_low_q;
    logic [CntW-1:0]       rem_d, rem_q;
    logic [CntW-1:0]       den_d, den_q;
    logic [MergeFracW-1:0] quo_d, quo_q;
    logic                  div_zero_d, div_zero_q, div_full_d, div_full_q;
    logic [DivCntW-1:0]    div_cnt_d, div_cnt_q;
    logic                  update_d, update_q;

    logic [CntW-1:0]       useful_n, early_n, merges_n, requests_n;
    logic                  period_end;
    logic [CntW:0]         rem_shift;
    logic                  quo_bit;
    logic [MergeW-1:0]     monitored;
    logic [MergeW:0]       merge_sum;
    logic [MergeW-1:0]     merge_avg;

    assign degree  = degree_q;
    assign em_drop = em_predict && drop_cnt_q < degree_q;

    assign useful_n   = useful_q + CntW'(ev_useful_i);
    assign early_n    = early_q + CntW'(ev_early_i);
    assign merges_n   = merges_q + CntW'(ev_merge_i);
    assign requests_n = requests_q + CntW'(ev_request_i);
    assign period_end = per_q == PerW'(Period - 1);

    // One step of the restoring divider: the next fraction bit of merges / requests.
    assign rem_shift = {rem_q, 1'b0};
    assign quo_bit   = rem_shift >= {1'b0, den_q};
    assign monitored = div_zero_q ? '0 :
                       div_full_q ? MergeW'(MergeOne) :
                                    {1'b0, quo_q};
    assign merge_sum = {1'b0, merge_q} + {1'b0, monitored};
    assign merge_avg = merge_sum[MergeW:1];
    logic unused_merge_lsb;
    assign unused_merge_lsb = merge_sum[0];

    always_comb begin : p_throttle
      degree_d   = degree_q;
      drop_cnt_d = drop_cnt_q;
      merge_d    = merge_q;
      per_d      = per_q + PerW'(1);
      useful_d   = useful_n;
      early_d    = early_n;
      merges_d   = merges_n;
      requests_d = requests_n;
      early_high_d = early_high_q;
      early_low_d  = early_low_q;
      rem_d      = rem_q;
      den_d      = den_q;
      quo_d      = quo_q;
      div_zero_d = div_zero_q;
      div_full_d = div_full_q;
      div_cnt_d  = div_cnt_q;
      update_d   = 1'b0;
      if (em_predict) begin
        drop_cnt_d = (drop_cnt_q == 3'd4) ? 3'd0 : drop_cnt_q + 3'd1;
      end
      if (div_cnt_q > DivCntW'(1)) begin
        rem_d     = CntW'(quo_bit ? rem_shift - {1'b0, den_q} : rem_shift);
        quo_d     = MergeFracW'({quo_q, quo_bit});
        div_cnt_d = div_cnt_q - DivCntW'(1);
      end else if (div_cnt_q == DivCntW'(1)) begin
        div_cnt_d = '0;
        // Eq. 8 and Table I.
        merge_d  = merge_avg;
        update_d = 1'b1;
        if (early_high_q) begin
          degree_d = ThrMax;
        end else if (!early_low_q) begin
          degree_d = (degree_q == ThrMax) ? ThrMax : degree_q + ThrW'(1);
        end else if (merge_avg > MergeW'(MergeHighThr)) begin
          degree_d = (degree_q == '0) ? '0 : degree_q - ThrW'(1);
        end else begin
          degree_d = ThrMax;
        end
      end
      if (period_end) begin
        per_d      = '0;
        useful_d   = '0;
        early_d    = '0;
        merges_d   = '0;
        requests_d = '0;
        // Eq. 5 and 7.
        early_high_d = MulW'(early_n) * MulW'(1000) > MulW'(EarlyHighPm) * MulW'(useful_n);
        early_low_d  = !early_high_d &&
                       (early_n == '0 ||
                        MulW'(early_n) * MulW'(1000) < MulW'(EarlyLowPm) * MulW'(useful_n));
        // Eq. 6: merges / requests, MergeFracW fraction bits (0 with no request, at most 1).
        rem_d      = merges_n;
        den_d      = requests_n;
        quo_d      = '0;
        div_zero_d = requests_n == '0;
        div_full_d = merges_n >= requests_n;
        div_cnt_d  = DivCntW'(MergeFracW + 1);
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_throttle_regs
      if (!rst_ni) begin
        degree_q   <= ThrW'(InitThrottle);
        drop_cnt_q <= '0;
        merge_q    <= '0;
        per_q      <= '0;
        useful_q   <= '0;
        early_q    <= '0;
        merges_q   <= '0;
        requests_q <= '0;
        early_high_q <= 1'b0;
        early_low_q  <= 1'b1;
        rem_q      <= '0;
        den_q      <= '0;
        quo_q      <= '0;
        div_zero_q <= 1'b0;
        div_full_q <= 1'b0;
        div_cnt_q  <= '0;
        update_q   <= 1'b0;
      end else begin
        degree_q   <= degree_d;
        drop_cnt_q <= drop_cnt_d;
        merge_q    <= merge_d;
        per_q      <= per_d;
        useful_q   <= useful_d;
        early_q    <= early_d;
        merges_q   <= merges_d;
        requests_q <= requests_d;
        early_high_q <= early_high_d;
        early_low_q  <= early_low_d;
        rem_q      <= rem_d;
        den_q      <= den_d;
        quo_q      <= quo_d;
        div_zero_q <= div_zero_d;
        div_full_q <= div_full_d;
        div_cnt_q  <= div_cnt_d;
        update_q   <= update_d;
      end
    end

    assign thr_update = update_q;
    assign thr_merge  = merge_q;
  end else begin : g_no_throttle
    logic unused_events;
    assign unused_events = ^{ev_useful_i, ev_early_i, ev_merge_i, ev_request_i};
    assign degree        = '0;
    assign em_drop       = 1'b0;
    assign thr_update    = 1'b0;
    assign thr_merge     = '0;
  end

  // ---------------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------------

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      pws_valid_q  <= '0;
      pws_q        <= '{default: '0};
      pend_valid_q <= 1'b0;
      pend_q       <= '0;
      pf_valid_q   <= 1'b0;
      pf_src_q     <= PfSrcNone;
      pf_drop_q    <= 1'b0;
      pf_issue_q   <= 1'b0;
      pf_addr_q    <= '0;
      pf_promote_q <= 1'b0;
    end else begin
      pws_valid_q  <= pws_valid_d;
      pws_q        <= pws_d;
      pend_valid_q <= pend_valid_d;
      pend_q       <= pend_d;
      pf_valid_q   <= pf_valid_d;
      pf_src_q     <= pf_src_d;
      pf_drop_q    <= pf_drop_d;
      pf_issue_q   <= pf_issue_d;
      pf_addr_q    <= pf_addr_d;
      pf_promote_q <= pf_promote_d;
    end
  end

  assign acc_ready_o  = ~pend_valid_q;
  assign pf_valid_o   = pf_valid_q;
  assign pf_src_o     = pf_src_q;
  assign pf_drop_o    = pf_drop_q;
  assign pf_count_o   = pf_issue_q ? PfCntW'(Degree) : '0;
  assign pf_addr_o    = pf_addr_q;
  assign pf_promote_o = pf_promote_q;
  assign thr_degree_o = degree;
  assign thr_update_o = thr_update;
  assign thr_merge_o  = thr_merge;

  // ---------------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------------

{% include "partials/asserts_begin.sv" %}

  // Parameter legality, checked at elaboration.
  `WS_ASSERT_INIT(ParamTables_A, NumPws >= 2 && NumGs >= 2 && NumIp >= 2,
                  "{{ module }}: every table needs at least two entries")
  `WS_ASSERT_INIT(ParamPromote_A, PromoteCount >= 1 && PromoteCount <= NumPws,
                  "{{ module }}: PromoteCount must be 1 to NumPws")
  `WS_ASSERT_INIT(ParamDegree_A, Degree >= 1 && Degree <= 8,
                  "{{ module }}: Degree must be 1 to 8")
  `WS_ASSERT_INIT(ParamInitThrottle_A, InitThrottle <= 5,
                  "{{ module }}: InitThrottle must be 0 to 5")
  `WS_ASSERT_INIT(ParamEarly_A, EarlyLowPm <= EarlyHighPm && EarlyHighPm <= 1000,
                  "{{ module }}: need EarlyLowPm <= EarlyHighPm <= 1000")
  `WS_ASSERT_INIT(ParamDivider_A, MergeFracW >= 1 && MergeFracW + 1 < Period,
                  "{{ module }}: the divider must end before the next period")

  // Interface rule: a launch has its cycle to itself.
  `WS_ASSERT(LaunchAlone_A, !launch_i || !acc_valid_i,
             "{{ module }}: launch_i must not come with acc_valid_i")
  // Invariant: a {PC, warp id} is held by at most one PWS entry.
  `WS_ASSERT(PwsOneMatch_A, !pend_valid_q || $onehot0(pws_match),
             "{{ module }}: two PWS entries hold the same PC and warp id")
  // Invariant: a PC is held by at most one entry of the GS table and of the IP table.
  `WS_ASSERT(GsOneMatch_A, gs_one_match, "{{ module }}: two GS entries hold the same PC")
  `WS_ASSERT(IpOneMatch_A, ip_one_match, "{{ module }}: two IP entries hold the same PC")
  // Invariant: the throttle degree stays within 0..5.
  `WS_ASSERT(DegreeRange_A, degree <= ThrMax, "{{ module }}: throttle degree beyond 5")

{% include "partials/asserts_end.sv" %}

endmodule : {{ module }}
