{{ header }}
// Package of the observation-table (OT) address predictor: the configuration it was generated
// for and the types on its interface.

package {{ pkg }};

  // Replacement policy within a set.
  typedef enum logic {
{%- for r in repl_members %}
    {{ r.name }} = {{ r.literal }}{% if !loop.last %},{% endif %}
{%- endfor %}
  } ot_repl_e;

  // What an observation did to the table (upd_event_o).
  typedef enum logic [{{ event_msb }}:0] {
{%- for e in event_members %}
    {{ e.name }} = {{ e.literal }}{% if !loop.last %},{% endif %}
{%- endfor %}
  } ot_event_e;

  // Configuration this package was generated for (defaults of ws_ot_predictor's parameters).
{%- for p in params %}
  localparam {{ p.ty }} {{ p.pkg_name }} = {{ p.value }};  // {{ p.meaning }}
{%- endfor %}

endpackage : {{ pkg }}
