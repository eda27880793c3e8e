{% include "partials/header.sv" %}
// The assertion macros every generated module uses (an include file: `include "{{ h.file }}"`).
// A module writes its assertions inside `ifndef <PREFIX>WS_ASSERTS_OFF ... `endif, after the
// register assert_active_q that enables them from the first clock edge after reset
// (templates/partials/asserts_begin.sv); synthesis removes them (Yosys `chformal -remove`).
//
//   `WS_ASSERT(Name_A, prop, "message")       concurrent: prop holds at every rising edge of
//                                              clk_i once assert_active_q is set, else $error
//   `WS_ASSERT_INIT(Name_A, cond, "message")  parameter legality, checked once at time 0, else
//                                              $fatal
// (Implications are written as `!a || b`: the slang front-end of Yosys does not accept `|->`.)

`ifndef {{ guard }}
`define {{ guard }}

`define WS_ASSERT(__name, __prop, __msg)                                                   \
  __name: assert property (@(posedge clk_i) disable iff (!assert_active_q) (__prop))        \
    else $error(__msg);

`define WS_ASSERT_INIT(__name, __cond, __msg)                                              \
  initial begin                                                                            \
    __name: assert (__cond) else $fatal(1, __msg);                                         \
  end

`endif  // {{ guard }}
