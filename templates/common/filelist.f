{% include "partials/header.sv" %}
// The files of {{ top }} in compilation order, relative to this folder. In this folder:
//   verilator --lint-only -Wall -f {{ h.file }}
// from anywhere (-F reads the paths relative to the file's folder):
//   verilator --lint-only -Wall -F <folder>/{{ h.file }}
+incdir+.
{%- for f in sources %}
{{ f }}
{%- endfor %}
