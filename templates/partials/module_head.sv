`include "{{ assert_svh }}"

module {{ module }}
  import {{ pkg }}::*;
#(
{%- for p in params %}
  parameter {{ p.ty }} {{ p.name }} = {{ p.pkg_name }},
{%- endfor %}
  // Derived from the parameters: computed once by the generator and carried by the package
  // (the elaboration checks below stop an instance whose parameters do not give these values).
{%- for p in derived %}
  localparam {{ p.ty }} {{ p.name }} = {{ p.pkg_name }}{{ p.sep }}
{%- endfor %}
) (
  input  logic clk_i,
  input  logic rst_ni,
{%- for port in ports %}
{{ port.lead }}  {{ port.decl }}{{ port.sep }}{{ port.trail }}
{%- endfor %}
);
