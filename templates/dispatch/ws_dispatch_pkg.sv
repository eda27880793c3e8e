{{ header }}
// Package of the locality-aware thread-block dispatcher: the configuration it was generated for.

package {{ pkg }};

  // Configuration this package was generated for (defaults of ws_dispatch's parameters).
{%- for p in params %}
  localparam {{ p.ty }} {{ p.pkg_name }} = {{ p.value }};  // {{ p.meaning }}
{%- endfor %}

endpackage : {{ pkg }}
