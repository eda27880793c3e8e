{{ header }}
// Package of the Warped-MC tables: the configuration they were generated for and the types on
// their interface.

package {{ pkg }};

  // Priority class of a candidate request (cand_class_o).
  typedef enum logic [1:0] {
{%- for e in class_members %}
    {{ e.name }} = {{ e.literal }}{% if !loop.last %},{% endif %}
{%- endfor %}
  } wmc_class_e;

  // Command chosen for the selected bank (sel_cmd_o).
  typedef enum logic [1:0] {
{%- for e in cmd_members %}
    {{ e.name }} = {{ e.literal }}{% if !loop.last %},{% endif %}
{%- endfor %}
  } wmc_cmd_e;

  // Configuration this package was generated for (defaults of ws_warped_mc's parameters).
{%- for p in params %}
  localparam {{ p.ty }} {{ p.pkg_name }} = {{ p.value }};  // {{ p.meaning }}
{%- endfor %}

endpackage : {{ pkg }}
