{% include "partials/header.sv" %}
// Warped-MC tables and decision logic -- seed 004 (Jeong et al., "Warped-MC: An Efficient
// Memory Controller Scheme for Massively Parallel Processors", ICPP 2023), section 4,
// Algorithm 1, Fig. 8, Table 3.
//
// One instance serves NumCtrl memory controllers with one warp entry table (WET); each
// controller has a row scoreboard (RS), a priority table (PT) and a bank round-robin pointer.
// The WET counts the requests of NumWetCtrl controllers (a multiple of NumCtrl: the block's own
// and, when the WET is global, every other controller's, whose blocks hold identical copies).
//
//   WAT  global warp id = {SM, warp} XOR the PC folded into PcHashW low bits (combinational).
//   WET  pending requests per global warp id: +1 per enqueue, -1 per serviced request, from every
//        controller of the scope in the same cycle (the total is applied, then saturated).
//   RS   per controller, bank and tracked row (row mod RowsTracked): a saturating score, +1 for
//        the row of a warp's remaining (slowest) request when a service leaves the warp with one
//        pending request and that request is a row miss; cleared when the row is activated.
//   PT   per controller and bank: the column slots of the open row holding a priority-H request,
//        recorded each cycle; a non-zero entry puts the bank in the high-priority pool.
//
// The enqueue and service ports carry the block's own controllers first (element c for
// controller c), then the rest of the WET scope.
//
// Per cycle and controller the outputs are combinational in the inputs and the state before
// the edge: the priority class of every candidate (H: row hit of a warp's last pending request;
// M: row hit of the warp whose request the controller serviced last; L: other row hit, or row
// miss), per bank the row to open on a row miss (highest score, oldest
// on ties), and the command to issue (two-level round robin over the banks whose command can
// issue: high-priority pool first). Semantics: docs/decisions/memory.md.

{% include "partials/module_head.sv" %}

  // ---------------------------------------------------------------------------------------------
  // Derived widths: the package's values must follow from this instance's parameters
  // ---------------------------------------------------------------------------------------------

  if (GwidW != SmW + WarpW) begin : g_bad_gwid_w
    $error("{{ module }}: the package's GwidW (%0d) does not follow from the parameters",
           GwidW);
  end
  if (WetEntries != 2 ** GwidW) begin : g_bad_wet_entries
    $error("{{ module }}: the package's WetEntries (%0d) does not follow from the parameters",
           WetEntries);
  end
  if (BankW != ((NumBanks > 1) ? $clog2(NumBanks) : 1)) begin : g_bad_bank_w
    $error("{{ module }}: the package's BankW (%0d) does not follow from the parameters",
           BankW);
  end
  if (CandW != ((NumCand > 1) ? $clog2(NumCand) : 1)) begin : g_bad_cand_w
    $error("{{ module }}: the package's CandW (%0d) does not follow from the parameters",
           CandW);
  end
  if (RowIdxW != ((RowsTracked > 1) ? $clog2(RowsTracked) : 1)) begin : g_bad_row_idx_w
    $error("{{ module }}: the package's RowIdxW (%0d) does not follow from the parameters",
           RowIdxW);
  end
  if (SlotW != ((PtSlots > 1) ? $clog2(PtSlots) : 1)) begin : g_bad_slot_w
    $error("{{ module }}: the package's SlotW (%0d) does not follow from the parameters",
           SlotW);
  end
  if (HashW != ((PcHashW > 0) ? PcHashW : 1)) begin : g_bad_hash_w
    $error("{{ module }}: the package's HashW (%0d) does not follow from the parameters",
           HashW);
  end
  if (CtrlW != ((NumCtrl > 1) ? $clog2(NumCtrl) : 1)) begin : g_bad_ctrl_w
    $error("{{ module }}: the package's CtrlW (%0d) does not follow from the parameters",
           CtrlW);
  end
  if (NumCtrlCand != NumCtrl * NumCand) begin : g_bad_num_ctrl_cand
    $error("{{ module }}: the package's NumCtrlCand (%0d) does not follow from the parameters",
           NumCtrlCand);
  end
  if (NumCtrlBank != NumCtrl * NumBanks) begin : g_bad_num_ctrl_bank
    $error("{{ module }}: the package's NumCtrlBank (%0d) does not follow from the parameters",
           NumCtrlBank);
  end
  if (NumPorts != 2 * NumWetCtrl) begin : g_bad_num_ports
    $error("{{ module }}: the package's NumPorts (%0d) does not follow from the parameters",
           NumPorts);
  end
  if (NumScores != NumCtrl * NumBanks * RowsTracked) begin : g_bad_num_scores
    $error("{{ module }}: the package's NumScores (%0d) does not follow from the parameters",
           NumScores);
  end

  localparam logic [PendW-1:0]  PendMax  = '1;
  localparam logic [ScoreW-1:0] ScoreMax = '1;

  // Warp alias table: {SM, warp} XOR the PC folded into the low PcHashW bits.
  function automatic logic [GwidW-1:0] gwid_of(logic [SmW-1:0] sm, logic [WarpW-1:0] warp,
                                               logic [PcW-1:0] pc);
    logic [GwidW-1:0] id;
    id = {sm, warp};
    if (PcHashW > 0) begin
      for (int unsigned i = 0; i < PcW; i++) begin
        id[i % HashW] = id[i % HashW] ^ pc[i];
      end
    end
    return id;
  endfunction

  // Flat table indices: row scores by (controller, bank, tracked row), PT by (controller, bank).
  // The tracked row is the row mod RowsTracked (with one tracked row, RowIdxW is 1 bit wide but
  // every row is row 0).
  function automatic int unsigned rs_idx(int unsigned c, logic [BankW-1:0] b,
                                         logic [RowIdxW-1:0] r);
    return (c * NumBanks + 32'(b)) * RowsTracked + 32'(r) % RowsTracked;
  endfunction

  function automatic logic [ScoreW-1:0] sat_inc(logic [ScoreW-1:0] s);
    return (s == ScoreMax) ? s : s + ScoreW'(1);
  endfunction

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------

  logic [PendW-1:0]   wet_d [WetEntries];
  logic [PendW-1:0]   wet_q [WetEntries];
  logic [ScoreW-1:0]  rs_d [NumScores];
  logic [ScoreW-1:0]  rs_q [NumScores];
  logic [PtSlots-1:0] pt_d [NumCtrlBank];
  logic [PtSlots-1:0] pt_q [NumCtrlBank];
  logic [BankW-1:0]   rr_d [NumCtrl];
  logic [BankW-1:0]   rr_q [NumCtrl];
  // Per controller: the warp of the request it serviced last.
  logic               last_valid_d [NumCtrl];
  logic               last_valid_q [NumCtrl];
  logic [GwidW-1:0]   last_gwid_d [NumCtrl];
  logic [GwidW-1:0]   last_gwid_q [NumCtrl];

  // ---------------------------------------------------------------------------------------------
  // Candidates: class and row score
  // ---------------------------------------------------------------------------------------------

  wmc_class_e         cand_class [NumCtrlCand];
  logic [ScoreW-1:0]  cand_score [NumCtrlCand];

  always_comb begin : p_class
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      for (int unsigned k = 0; k < NumCand; k++) begin
        cand_class[c * NumCand + k] =
            !cand_valid_i[c * NumCand + k] ? WmcNone :
            !cand_hit_i[c * NumCand + k]   ? WmcL :
            (wet_q[cand_gwid_i[c * NumCand + k]] <= PendW'(1)) ? WmcH :
            (last_valid_q[c] && last_gwid_q[c] == cand_gwid_i[c * NumCand + k]) ? WmcM : WmcL;
        cand_score[c * NumCand + k] =
            rs_q[rs_idx(c, cand_bank_i[c * NumCand + k], RowIdxW'(cand_row_i[c * NumCand + k]))];
      end
    end
  end

  for (genvar e = 0; e < NumCtrlCand; e++) begin : g_class_out
    assign cand_class_o[e] = cand_class[e];
  end

  // ---------------------------------------------------------------------------------------------
  // Per bank: the best row hit, the best row miss, and the command the bank would issue
  // ---------------------------------------------------------------------------------------------

  wmc_cmd_e         bank_cmd  [NumCtrl][NumBanks];
  logic [CandW-1:0] bank_cand [NumCtrl][NumBanks];
  logic [RowW-1:0]  bank_row  [NumCtrl][NumBanks];

  always_comb begin : p_bank
    logic             hit_found, miss_found;
    wmc_class_e       hit_cls;
    logic [CandW-1:0] hit_k, miss_k;
    logic [ScoreW-1:0] miss_score;
    logic [RowW-1:0]  miss_row;
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      for (int unsigned b = 0; b < NumBanks; b++) begin
        hit_found  = 1'b0;
        hit_cls    = WmcNone;
        hit_k      = '0;
        miss_found = 1'b0;
        miss_score = '0;
        miss_k     = '0;
        miss_row   = '0;
        for (int unsigned k = 0; k < NumCand; k++) begin
          if (cand_valid_i[c * NumCand + k] && cand_bank_i[c * NumCand + k] == BankW'(b)) begin
            if (cand_hit_i[c * NumCand + k]) begin
              // The first H, else the first M, else the first L (lowest slot = oldest).
              if (!hit_found || cand_class[c * NumCand + k] > hit_cls) begin
                hit_found = 1'b1;
                hit_cls   = cand_class[c * NumCand + k];
                hit_k     = CandW'(k);
              end
            end else if (!miss_found || cand_score[c * NumCand + k] > miss_score) begin
              // The highest-scoring pending row, oldest on ties.
              miss_found = 1'b1;
              miss_score = cand_score[c * NumCand + k];
              miss_k     = CandW'(k);
              miss_row   = cand_row_i[c * NumCand + k];
            end
          end
        end
        open_valid_o[c * NumBanks + b] = miss_found;
        open_row_o[c * NumBanks + b]   = miss_found ? miss_row : '0;
        open_cand_o[c * NumBanks + b]  = miss_found ? miss_k : '0;
        bank_cmd[c][b]  = WmcNoCmd;
        bank_cand[c][b] = '0;
        bank_row[c][b]  = '0;
        if (hit_found) begin
          if (cas_ready_i[c * NumBanks + b]) begin
            bank_cmd[c][b]  = WmcCas;
            bank_cand[c][b] = hit_k;
          end
        end else if (miss_found) begin
          if (bank_open_i[c * NumBanks + b]) begin
            if (pre_ready_i[c * NumBanks + b]) begin
              bank_cmd[c][b] = WmcPre;
            end
          end else if (act_ready_i[c * NumBanks + b]) begin
            bank_cmd[c][b]  = WmcAct;
            bank_cand[c][b] = miss_k;
            bank_row[c][b]  = miss_row;
          end
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Bank selection: two-level round robin, the high-priority pool (PT entry non-zero) first
  // ---------------------------------------------------------------------------------------------

  // Per controller: the banks whose command can issue, and those of them in the pool.
  logic [NumBanks-1:0] ready_any [NumCtrl];
  logic [NumBanks-1:0] ready_pool [NumCtrl];
  logic                pick_any [NumCtrl];
  logic                pick_pool [NumCtrl];
  logic [BankW-1:0]    pick_any_bank [NumCtrl];
  logic [BankW-1:0]    pick_pool_bank [NumCtrl];

  always_comb begin : p_ready
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      for (int unsigned b = 0; b < NumBanks; b++) begin
        ready_any[c][b]  = bank_cmd[c][b] != WmcNoCmd;
        ready_pool[c][b] = bank_cmd[c][b] != WmcNoCmd && pt_q[c * NumBanks + b] != '0;
      end
    end
  end

  for (genvar c = 0; c < NumCtrl; c++) begin : g_select
    {{ prim.rr_first }} #(
      .N    (NumBanks),
      .IdxW (BankW)
    ) u_pool (
      .req_i   (ready_pool[c]),
      .ptr_i   (rr_q[c]),
      .found_o (pick_pool[c]),
      .idx_o   (pick_pool_bank[c])
    );
    {{ prim.rr_first }} #(
      .N    (NumBanks),
      .IdxW (BankW)
    ) u_any (
      .req_i   (ready_any[c]),
      .ptr_i   (rr_q[c]),
      .found_o (pick_any[c]),
      .idx_o   (pick_any_bank[c])
    );
  end

  always_comb begin : p_select
    logic found;
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      found          = pick_pool[c] || pick_any[c];
      sel_bank_o[c]  = pick_pool[c] ? pick_pool_bank[c] : pick_any_bank[c];
      sel_valid_o[c] = found;
      sel_cmd_o[c]   = found ? bank_cmd[c][sel_bank_o[c]] : WmcNoCmd;
      sel_cand_o[c]  = found ? bank_cand[c][sel_bank_o[c]] : '0;
      sel_row_o[c]   = found ? bank_row[c][sel_bank_o[c]] : '0;
      // The pointer moves past a bank after a row command (GPGPU-Sim's `prio`).
      rr_d[c]        = (found && (sel_cmd_o[c] == WmcPre || sel_cmd_o[c] == WmcAct)) ?
                       BankW'((32'(sel_bank_o[c]) + 1) % NumBanks) : rr_q[c];
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Warp entry table: the scope's increments and decrements, summed then saturated
  // ---------------------------------------------------------------------------------------------

  logic             port_valid [NumPorts];
  logic [GwidW-1:0] port_gwid  [NumPorts];
  logic             port_up    [NumPorts];
  logic [PendW-1:0] port_next  [NumPorts];

  always_comb begin : p_ports
    for (int unsigned c = 0; c < NumWetCtrl; c++) begin
      port_valid[2 * c]     = enq_valid_i[c];
      port_gwid[2 * c]      = gwid_of(enq_sm_i[c], enq_warp_i[c], enq_pc_i[c]);
      port_up[2 * c]        = 1'b1;
      port_valid[2 * c + 1] = svc_valid_i[c];
      port_gwid[2 * c + 1]  = svc_gwid_i[c];
      port_up[2 * c + 1]    = 1'b0;
    end
  end

  always_comb begin : p_wet
    int delta;
    int count;
    wet_d = wet_q;
    for (int unsigned p = 0; p < NumPorts; p++) begin
      delta = 0;
      for (int unsigned q = 0; q < NumPorts; q++) begin
        if (port_valid[q] && port_gwid[q] == port_gwid[p]) begin
          delta = port_up[q] ? delta + 1 : delta - 1;
        end
      end
      count        = int'(wet_q[port_gwid[p]]) + delta;
      port_next[p] = (count < 0) ? '0 : (count > int'(PendMax)) ? PendMax : PendW'(count);
    end
    for (int unsigned p = 0; p < NumPorts; p++) begin
      if (port_valid[p]) begin
        wet_d[port_gwid[p]] = port_next[p];
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Row scoreboard and priority table
  // ---------------------------------------------------------------------------------------------

  always_comb begin : p_rs
    logic               found, found_hit;
    logic [CtrlW-1:0]   fc;
    logic [BankW-1:0]   fb;
    logic [RowIdxW-1:0] fr;
    rs_d      = rs_q;
    found     = 1'b0;
    found_hit = 1'b0;
    fc        = '0;
    fb        = '0;
    fr        = '0;
    for (int unsigned c = 0; c < NumWetCtrl; c++) begin
      // A service that leaves a warp with one pending request: that request is the warp's
      // slowest; if it waits here as a row miss (first candidate of the warp among this
      // block's controllers), its row gets +1.
      if (svc_valid_i[c] && port_next[2 * c + 1] == PendW'(1)) begin
        found     = 1'b0;
        found_hit = 1'b0;
        fc        = '0;
        fb        = '0;
        fr        = '0;
        for (int unsigned c2 = 0; c2 < NumCtrl; c2++) begin
          for (int unsigned k = 0; k < NumCand; k++) begin
            if (!found && cand_valid_i[c2 * NumCand + k] &&
                cand_gwid_i[c2 * NumCand + k] == svc_gwid_i[c]) begin
              found     = 1'b1;
              found_hit = cand_hit_i[c2 * NumCand + k];
              fc        = CtrlW'(c2);
              fb        = cand_bank_i[c2 * NumCand + k];
              fr        = RowIdxW'(cand_row_i[c2 * NumCand + k]);
            end
          end
        end
        if (found && !found_hit) begin
          rs_d[rs_idx(32'(fc), fb, fr)] = sat_inc(rs_d[rs_idx(32'(fc), fb, fr)]);
        end
      end
    end
    // Activating a row clears its score.
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      if (act_valid_i[c]) begin
        rs_d[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))] = '0;
      end
    end
  end

  always_comb begin : p_pt
    logic [PtSlots-1:0] onehot [NumCtrlCand];
    // The column slot mod PtSlots (with one slot, SlotW is 1 bit wide but every slot is 0).
    for (int unsigned e = 0; e < NumCtrlCand; e++) begin
      onehot[e] = PtSlots'(1) << (32'(cand_slot_i[e]) % PtSlots);
    end
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      for (int unsigned b = 0; b < NumBanks; b++) begin
        pt_d[c * NumBanks + b] = '0;
        for (int unsigned k = 0; k < NumCand; k++) begin
          if (cand_class[c * NumCand + k] == WmcH && cand_bank_i[c * NumCand + k] == BankW'(b))
          begin
            pt_d[c * NumBanks + b] = pt_d[c * NumBanks + b] | onehot[c * NumCand + k];
          end
        end
      end
    end
  end

  // The warp each controller serviced last (a service of controller c arrives on port c).
  always_comb begin : p_last
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      last_valid_d[c] = svc_valid_i[c] ? 1'b1 : last_valid_q[c];
      last_gwid_d[c]  = svc_valid_i[c] ? svc_gwid_i[c] : last_gwid_q[c];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      wet_q        <= '{default: '0};
      rs_q         <= '{default: '0};
      pt_q         <= '{default: '0};
      rr_q         <= '{default: '0};
      last_valid_q <= '{default: '0};
      last_gwid_q  <= '{default: '0};
    end else begin
      wet_q        <= wet_d;
      rs_q         <= rs_d;
      pt_q         <= pt_d;
      rr_q         <= rr_d;
      last_valid_q <= last_valid_d;
      last_gwid_q  <= last_gwid_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------------

{% include "partials/asserts_begin.sv" %}

  `WS_ASSERT_INIT(ParamBanksPow2_A, NumBanks > 0 && (NumBanks & (NumBanks - 1)) == 0,
                  "{{ module }}: NumBanks must be a power of two")
  `WS_ASSERT_INIT(ParamRowsPow2_A, RowsTracked > 0 && (RowsTracked & (RowsTracked - 1)) == 0,
                  "{{ module }}: RowsTracked must be a power of two")
  `WS_ASSERT_INIT(ParamSlotsPow2_A, PtSlots > 0 && (PtSlots & (PtSlots - 1)) == 0,
                  "{{ module }}: PtSlots must be a power of two")
  `WS_ASSERT_INIT(ParamHash_A, PcHashW <= GwidW,
                  "{{ module }}: PcHashW must not exceed the global warp id width")
  `WS_ASSERT_INIT(ParamScope_A, NumWetCtrl >= NumCtrl && NumWetCtrl % NumCtrl == 0,
                  "{{ module }}: NumWetCtrl must be a multiple of NumCtrl")

  // Interface rule: a candidate can only hit the open row of an open bank.
  logic hit_on_closed;
  always_comb begin : p_hit_closed
    hit_on_closed = 1'b0;
    for (int unsigned c = 0; c < NumCtrl; c++) begin
      for (int unsigned k = 0; k < NumCand; k++) begin
        if (cand_valid_i[c * NumCand + k] && cand_hit_i[c * NumCand + k] &&
            !bank_open_i[c * NumBanks + 32'(cand_bank_i[c * NumCand + k])]) begin
          hit_on_closed = 1'b1;
        end
      end
    end
  end

  `WS_ASSERT(CandHitOpen_A, !hit_on_closed,
             "{{ module }}: a candidate hits a bank that has no open row")

{% include "partials/asserts_end.sv" %}

endmodule : {{ module }}
