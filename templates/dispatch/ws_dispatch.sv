{% include "partials/header.sv" %}
// Locality-aware thread-block dispatcher, decision unit -- seed 002 (Chen, "Improving GPU
// Memory Performance via Address Pre-computation"), section 3.3, Table 5.2.
//
// A block queue of NumQueue entries (block id and one cache-line rectangle per data array, kept
// oldest first), the running-block table (NumSms x NumSlots rectangles), and an engine that
// scores ScoredPerCycle queue entries per cycle against the running table:
//   here      = lines the entry shares with the blocks running on the target SM,
//   elsewhere = lines it shares with the blocks running on every other SM.
// After the last chunk it offers the entry with the highest `here` (oldest on ties), or if every
// `here` was 0 the entry with the lowest `elsewhere` (oldest on ties), into the target SM's first
// free slot. The target SM is the first with a free slot, round-robin from the one after the SM
// chosen last. Per edge, from the state before it: an offer with disp_ready_i is committed
// (rectangles into the running table, the entry leaves the queue and younger ones move up), a
// finished block frees its slot, an enqueued block joins the queue's tail, and the engine
// advances. A decision takes 2 + ceil(NumQueue / ScoredPerCycle) cycles. Semantics:
// docs/decisions/dispatch.md.

{% include "partials/module_head.sv" %}

  // ---------------------------------------------------------------------------------------------
  // Derived widths: the package's values must follow from this instance's parameters
  // ---------------------------------------------------------------------------------------------

  if (SmW != ((NumSms > 1) ? $clog2(NumSms) : 1)) begin : g_bad_sm_w
    $error("{{ module }}: the package's SmW (%0d) does not follow from the parameters",
           SmW);
  end
  if (SlotW != ((NumSlots > 1) ? $clog2(NumSlots) : 1)) begin : g_bad_slot_w
    $error("{{ module }}: the package's SlotW (%0d) does not follow from the parameters",
           SlotW);
  end
  if (QIdxW != ((NumQueue > 1) ? $clog2(NumQueue) : 1)) begin : g_bad_q_idx_w
    $error("{{ module }}: the package's QIdxW (%0d) does not follow from the parameters",
           QIdxW);
  end
  if (QCntW != $clog2(NumQueue + 1)) begin : g_bad_q_cnt_w
    $error("{{ module }}: the package's QCntW (%0d) does not follow from the parameters",
           QCntW);
  end
  if (NumChunks != (NumQueue + ScoredPerCycle - 1) / ScoredPerCycle) begin : g_bad_num_chunks
    $error("{{ module }}: the package's NumChunks (%0d) does not follow from the parameters",
           NumChunks);
  end
  if (ChunkW != ((NumChunks > 1) ? $clog2(NumChunks) : 1)) begin : g_bad_chunk_w
    $error("{{ module }}: the package's ChunkW (%0d) does not follow from the parameters",
           ChunkW);
  end
  if (NumRun != NumSms * NumSlots) begin : g_bad_num_run
    $error("{{ module }}: the package's NumRun (%0d) does not follow from the parameters",
           NumRun);
  end
  if (NumQRects != NumQueue * NumArrays) begin : g_bad_num_q_rects
    $error("{{ module }}: the package's NumQRects (%0d) does not follow from the parameters",
           NumQRects);
  end
  if (NumRunRects != NumRun * NumArrays) begin : g_bad_num_run_rects
    $error("{{ module }}: the package's NumRunRects (%0d) does not follow from the parameters",
           NumRunRects);
  end
  if (AreaW != 2 * CoordW) begin : g_bad_area_w
    $error("{{ module }}: the package's AreaW (%0d) does not follow from the parameters",
           AreaW);
  end
  if (HereW != AreaW + $clog2(NumSlots * NumArrays)) begin : g_bad_here_w
    $error("{{ module }}: the package's HereW (%0d) does not follow from the parameters",
           HereW);
  end
  if (ElseW != AreaW + $clog2(NumRun * NumArrays)) begin : g_bad_else_w
    $error("{{ module }}: the package's ElseW (%0d) does not follow from the parameters",
           ElseW);
  end

  // Lines two rectangles share: the intersection of [x, x + w) x [y, y + h).
  function automatic logic [AreaW-1:0] overlap(
      logic [CoordW-1:0] ax, logic [CoordW-1:0] ay, logic [CoordW-1:0] aw, logic [CoordW-1:0] ah,
      logic [CoordW-1:0] bx, logic [CoordW-1:0] by, logic [CoordW-1:0] bw, logic [CoordW-1:0] bh);
    logic [CoordW:0] lo_x, hi_x, lo_y, hi_y;
    logic [CoordW-1:0] ix, iy;
    lo_x = (ax > bx) ? {1'b0, ax} : {1'b0, bx};
    hi_x = ({1'b0, ax} + {1'b0, aw} < {1'b0, bx} + {1'b0, bw}) ?
           {1'b0, ax} + {1'b0, aw} : {1'b0, bx} + {1'b0, bw};
    lo_y = (ay > by) ? {1'b0, ay} : {1'b0, by};
    hi_y = ({1'b0, ay} + {1'b0, ah} < {1'b0, by} + {1'b0, bh}) ?
           {1'b0, ay} + {1'b0, ah} : {1'b0, by} + {1'b0, bh};
    ix = (hi_x > lo_x) ? CoordW'(hi_x - lo_x) : '0;
    iy = (hi_y > lo_y) ? CoordW'(hi_y - lo_y) : '0;
    return AreaW'(ix) * AreaW'(iy);
  endfunction

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------

  logic [QCntW-1:0]  q_count_d, q_count_q;
  logic [IdW-1:0]    q_id_d [NumQueue];
  logic [IdW-1:0]    q_id_q [NumQueue];
  logic              q_has_d [NumQRects];
  logic              q_has_q [NumQRects];
  logic [CoordW-1:0] q_x_d [NumQRects];
  logic [CoordW-1:0] q_x_q [NumQRects];
  logic [CoordW-1:0] q_y_d [NumQRects];
  logic [CoordW-1:0] q_y_q [NumQRects];
  logic [CoordW-1:0] q_w_d [NumQRects];
  logic [CoordW-1:0] q_w_q [NumQRects];
  logic [CoordW-1:0] q_h_d [NumQRects];
  logic [CoordW-1:0] q_h_q [NumQRects];

  logic              run_valid_d [NumRun];
  logic              run_valid_q [NumRun];
  logic              run_has_d [NumRunRects];
  logic              run_has_q [NumRunRects];
  logic [CoordW-1:0] run_x_d [NumRunRects];
  logic [CoordW-1:0] run_x_q [NumRunRects];
  logic [CoordW-1:0] run_y_d [NumRunRects];
  logic [CoordW-1:0] run_y_q [NumRunRects];
  logic [CoordW-1:0] run_w_d [NumRunRects];
  logic [CoordW-1:0] run_w_q [NumRunRects];
  logic [CoordW-1:0] run_h_d [NumRunRects];
  logic [CoordW-1:0] run_h_q [NumRunRects];

  logic [SmW-1:0]    rr_sm_d, rr_sm_q;
  logic              scan_d, scan_q;
  logic [SmW-1:0]    scan_sm_d, scan_sm_q;
  logic [ChunkW-1:0] scan_chunk_d, scan_chunk_q;
  logic              here_valid_d, here_valid_q;
  logic [HereW-1:0]  here_best_d, here_best_q;
  logic [QIdxW-1:0]  here_idx_d, here_idx_q;
  logic              else_valid_d, else_valid_q;
  logic [ElseW-1:0]  else_best_d, else_best_q;
  logic [QIdxW-1:0]  else_idx_d, else_idx_q;
  logic              offer_d, offer_q;
  logic [QIdxW-1:0]  offer_idx_d, offer_idx_q;
  logic [SmW-1:0]    offer_sm_d, offer_sm_q;
  logic [SlotW-1:0]  offer_slot_d, offer_slot_q;

  // ---------------------------------------------------------------------------------------------
  // Outputs (registered)
  // ---------------------------------------------------------------------------------------------

  assign enq_ready_o  = (q_count_q < QCntW'(NumQueue));
  assign disp_valid_o = offer_q;
  assign disp_id_o    = offer_q ? q_id_q[offer_idx_q] : '0;
  assign disp_sm_o    = offer_q ? offer_sm_q : '0;
  assign disp_slot_o  = offer_q ? offer_slot_q : '0;

  // ---------------------------------------------------------------------------------------------
  // Engine: target SM, chunk scores, best candidates
  // ---------------------------------------------------------------------------------------------

  // First SM with a free slot, round-robin from rr_sm_q.
  logic [NumSms-1:0] sm_has_free;
  logic              free_found;
  logic [SmW-1:0]    free_sm;

  always_comb begin : p_sm_has_free
    for (int unsigned s = 0; s < NumSms; s++) begin
      sm_has_free[s] = 1'b0;
      for (int unsigned k = 0; k < NumSlots; k++) begin
        if (!run_valid_q[s * NumSlots + k]) begin
          sm_has_free[s] = 1'b1;
        end
      end
    end
  end

  {{ prim.rr_first }} #(
    .N    (NumSms),
    .IdxW (SmW)
  ) u_free_sm (
    .req_i   (sm_has_free),
    .ptr_i   (rr_sm_q),
    .found_o (free_found),
    .idx_o   (free_sm)
  );

  // First free slot of the SM being scanned.
  logic [NumSlots-1:0] scan_free;
  logic                slot_found;
  logic [SlotW-1:0]    slot_free;

  always_comb begin : p_scan_free
    for (int unsigned k = 0; k < NumSlots; k++) begin
      scan_free[k] = !run_valid_q[32'(scan_sm_q) * NumSlots + k];
    end
  end

  {{ prim.first_one }} #(
    .N    (NumSlots),
    .IdxW (SlotW)
  ) u_free_slot (
    .in_i    (scan_free),
    .found_o (slot_found),
    .idx_o   (slot_free)
  );

  // The chunk's candidates, their scores, and the best so far including them.
  logic              chunk_last;
  logic              here_valid_n, else_valid_n;
  logic [HereW-1:0]  here_best_n;
  logic [ElseW-1:0]  else_best_n;
  logic [QIdxW-1:0]  here_idx_n, else_idx_n;

  always_comb begin : p_score
    int unsigned q;
    logic [HereW-1:0] here;
    logic [ElseW-1:0] elsewhere;
    logic [AreaW-1:0] o;
    q            = 0;
    here         = '0;
    elsewhere    = '0;
    o            = '0;
    chunk_last   = (32'(scan_chunk_q) + 1) * ScoredPerCycle >= NumQueue;
    here_valid_n = here_valid_q;
    here_best_n  = here_best_q;
    here_idx_n   = here_idx_q;
    else_valid_n = else_valid_q;
    else_best_n  = else_best_q;
    else_idx_n   = else_idx_q;
    for (int unsigned i = 0; i < ScoredPerCycle; i++) begin
      q = 32'(scan_chunk_q) * ScoredPerCycle + i;
      if (q < NumQueue && q < 32'(q_count_q)) begin
        here      = '0;
        elsewhere = '0;
        for (int unsigned r = 0; r < NumRun; r++) begin
          for (int unsigned a = 0; a < NumArrays; a++) begin
            o = overlap(q_x_q[q * NumArrays + a], q_y_q[q * NumArrays + a],
                        q_w_q[q * NumArrays + a], q_h_q[q * NumArrays + a],
                        run_x_q[r * NumArrays + a], run_y_q[r * NumArrays + a],
                        run_w_q[r * NumArrays + a], run_h_q[r * NumArrays + a]);
            if (run_valid_q[r] && q_has_q[q * NumArrays + a] && run_has_q[r * NumArrays + a]) begin
              if (r / NumSlots == 32'(scan_sm_q)) begin
                here = here + HereW'(o);
              end else begin
                elsewhere = elsewhere + ElseW'(o);
              end
            end
          end
        end
        if (!here_valid_n || here > here_best_n) begin
          here_valid_n = 1'b1;
          here_best_n  = here;
          here_idx_n   = QIdxW'(q);
        end
        if (!else_valid_n || elsewhere < else_best_n) begin
          else_valid_n = 1'b1;
          else_best_n  = elsewhere;
          else_idx_n   = QIdxW'(q);
        end
      end
    end
  end

  always_comb begin : p_engine
    rr_sm_d      = rr_sm_q;
    scan_d       = scan_q;
    scan_sm_d    = scan_sm_q;
    // With a single chunk the counter is always 0 (a constant synthesis removes).
    scan_chunk_d = (NumChunks > 1) ? scan_chunk_q : '0;
    here_valid_d = here_valid_q;
    here_best_d  = here_best_q;
    // With a one-entry queue every index is 0 (constants synthesis removes).
    here_idx_d   = (NumQueue > 1) ? here_idx_q : '0;
    else_valid_d = else_valid_q;
    else_best_d  = else_best_q;
    else_idx_d   = (NumQueue > 1) ? else_idx_q : '0;
    offer_d      = offer_q;
    offer_idx_d  = (NumQueue > 1) ? offer_idx_q : '0;
    offer_sm_d   = offer_sm_q;
    offer_slot_d = offer_slot_q;
    if (offer_q) begin
      // Waiting for disp_ready_i.
      if (disp_ready_i) begin
        offer_d = 1'b0;
      end
    end else if (!scan_q) begin
      if (q_count_q != '0 && free_found) begin
        scan_d       = 1'b1;
        scan_sm_d    = free_sm;
        scan_chunk_d = '0;
        here_valid_d = 1'b0;
        else_valid_d = 1'b0;
        rr_sm_d      = SmW'((32'(free_sm) + 1) % NumSms);
      end
    end else begin
      here_valid_d = here_valid_n;
      here_best_d  = here_best_n;
      here_idx_d   = (NumQueue > 1) ? here_idx_n : '0;
      else_valid_d = else_valid_n;
      else_best_d  = else_best_n;
      else_idx_d   = (NumQueue > 1) ? else_idx_n : '0;
      if (chunk_last) begin
        scan_d       = 1'b0;
        offer_d      = (here_valid_n || else_valid_n) && slot_found;
        offer_idx_d  = (NumQueue == 1) ? '0 :
                       (here_valid_n && here_best_n != '0) ? here_idx_n : else_idx_n;
        offer_sm_d   = scan_sm_q;
        offer_slot_d = slot_free;
      end else if (NumChunks > 1) begin
        scan_chunk_d = scan_chunk_q + ChunkW'(1);
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Queue and running table: commit, finish, enqueue
  // ---------------------------------------------------------------------------------------------

  logic commit;
  assign commit = offer_q && disp_ready_i;

  always_comb begin : p_tables
    logic [QCntW-1:0] count;
    int unsigned      run;
    q_id_d      = q_id_q;
    q_has_d     = q_has_q;
    q_x_d       = q_x_q;
    q_y_d       = q_y_q;
    q_w_d       = q_w_q;
    q_h_d       = q_h_q;
    run_valid_d = run_valid_q;
    run_has_d   = run_has_q;
    run_x_d     = run_x_q;
    run_y_d     = run_y_q;
    run_w_d     = run_w_q;
    run_h_d     = run_h_q;
    count       = q_count_q;
    run         = 0;
    if (commit) begin
      run = 32'(offer_sm_q) * NumSlots + 32'(offer_slot_q);
      run_valid_d[run] = 1'b1;
      for (int unsigned a = 0; a < NumArrays; a++) begin
        run_has_d[run * NumArrays + a] = q_has_q[32'(offer_idx_q) * NumArrays + a];
        run_x_d[run * NumArrays + a]   = q_x_q[32'(offer_idx_q) * NumArrays + a];
        run_y_d[run * NumArrays + a]   = q_y_q[32'(offer_idx_q) * NumArrays + a];
        run_w_d[run * NumArrays + a]   = q_w_q[32'(offer_idx_q) * NumArrays + a];
        run_h_d[run * NumArrays + a]   = q_h_q[32'(offer_idx_q) * NumArrays + a];
      end
      // Younger entries move up one place.
      for (int unsigned q = 0; q + 1 < NumQueue; q++) begin
        if (q >= 32'(offer_idx_q)) begin
          q_id_d[q] = q_id_q[q + 1];
          for (int unsigned a = 0; a < NumArrays; a++) begin
            q_has_d[q * NumArrays + a] = q_has_q[(q + 1) * NumArrays + a];
            q_x_d[q * NumArrays + a]   = q_x_q[(q + 1) * NumArrays + a];
            q_y_d[q * NumArrays + a]   = q_y_q[(q + 1) * NumArrays + a];
            q_w_d[q * NumArrays + a]   = q_w_q[(q + 1) * NumArrays + a];
            q_h_d[q * NumArrays + a]   = q_h_q[(q + 1) * NumArrays + a];
          end
        end
      end
      count = count - QCntW'(1);
    end
    if (done_valid_i) begin
      run_valid_d[32'(done_sm_i) * NumSlots + 32'(done_slot_i)] = 1'b0;
    end
    if (enq_valid_i && 32'(count) < NumQueue) begin
      q_id_d[32'(count)] = enq_id_i;
      for (int unsigned a = 0; a < NumArrays; a++) begin
        q_has_d[32'(count) * NumArrays + a] = enq_has_i[a];
        q_x_d[32'(count) * NumArrays + a]   = enq_x_i[a];
        q_y_d[32'(count) * NumArrays + a]   = enq_y_i[a];
        q_w_d[32'(count) * NumArrays + a]   = enq_w_i[a];
        q_h_d[32'(count) * NumArrays + a]   = enq_h_i[a];
      end
      count = count + QCntW'(1);
    end
    q_count_d = count;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      q_count_q    <= '0;
      q_id_q       <= '{default: '0};
      q_has_q      <= '{default: '0};
      q_x_q        <= '{default: '0};
      q_y_q        <= '{default: '0};
      q_w_q        <= '{default: '0};
      q_h_q        <= '{default: '0};
      run_valid_q  <= '{default: '0};
      run_has_q    <= '{default: '0};
      run_x_q      <= '{default: '0};
      run_y_q      <= '{default: '0};
      run_w_q      <= '{default: '0};
      run_h_q      <= '{default: '0};
      rr_sm_q      <= '0;
      scan_q       <= 1'b0;
      scan_sm_q    <= '0;
      scan_chunk_q <= '0;
      here_valid_q <= 1'b0;
      here_best_q  <= '0;
      here_idx_q   <= '0;
      else_valid_q <= 1'b0;
      else_best_q  <= '0;
      else_idx_q   <= '0;
      offer_q      <= 1'b0;
      offer_idx_q  <= '0;
      offer_sm_q   <= '0;
      offer_slot_q <= '0;
    end else begin
      q_count_q    <= q_count_d;
      q_id_q       <= q_id_d;
      q_has_q      <= q_has_d;
      q_x_q        <= q_x_d;
      q_y_q        <= q_y_d;
      q_w_q        <= q_w_d;
      q_h_q        <= q_h_d;
      run_valid_q  <= run_valid_d;
      run_has_q    <= run_has_d;
      run_x_q      <= run_x_d;
      run_y_q      <= run_y_d;
      run_w_q      <= run_w_d;
      run_h_q      <= run_h_d;
      rr_sm_q      <= rr_sm_d;
      scan_q       <= scan_d;
      scan_sm_q    <= scan_sm_d;
      scan_chunk_q <= scan_chunk_d;
      here_valid_q <= here_valid_d;
      here_best_q  <= here_best_d;
      here_idx_q   <= here_idx_d;
      else_valid_q <= else_valid_d;
      else_best_q  <= else_best_d;
      else_idx_q   <= else_idx_d;
      offer_q      <= offer_d;
      offer_idx_q  <= offer_idx_d;
      offer_sm_q   <= offer_sm_d;
      offer_slot_q <= offer_slot_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------------

{% include "partials/asserts_begin.sv" %}

  `WS_ASSERT_INIT(ParamScored_A, ScoredPerCycle >= 1 && ScoredPerCycle <= NumQueue,
                  "{{ module }}: ScoredPerCycle must be in 1..NumQueue")

  `WS_ASSERT(EnqFull_A, !(enq_valid_i && !enq_ready_o),
             "{{ module }}: a block was enqueued while the block queue is full")

  // Interface rule: a finished block was running in that slot.
  logic done_idle;
  always_comb begin : p_done_idle
    done_idle = 1'b0;
    for (int unsigned r = 0; r < NumRun; r++) begin
      if (done_valid_i && r == 32'(done_sm_i) * NumSlots + 32'(done_slot_i) && !run_valid_q[r])
      begin
        done_idle = 1'b1;
      end
    end
    if (done_valid_i && (32'(done_sm_i) >= NumSms || 32'(done_slot_i) >= NumSlots)) begin
      done_idle = 1'b1;
    end
  end

  `WS_ASSERT(DoneIdle_A, !done_idle,
             "{{ module }}: a block finished in a slot that runs no block")

{% include "partials/asserts_end.sv" %}

endmodule : {{ module }}
