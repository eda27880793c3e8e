{% include "partials/header.sv" %}
// {{ description }}

package {{ pkg }};
{%- for e in enums %}

{{ e.comment }}  typedef enum {{ e.base }} {
{%- for m in e.members %}
    {{ m.name }} = {{ m.literal }}{% if !loop.last %},{% endif %}
{%- endfor %}
  } {{ e.name }};
{%- endfor %}

  // Configuration this package was generated for: the defaults of {{ top }}'s parameters
  // and every width derived from them.
{%- for p in params %}
{{ p.lead }}  localparam {{ p.ty }} {{ p.pkg_name }} = {{ p.value }};{{ p.trail }}
{%- endfor %}

endpackage : {{ pkg }}
