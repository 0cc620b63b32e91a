// The SPARQL page: the plain query form becomes YASGUI (an editor with syntax highlighting,
// example queries as tabs, results as a sortable table, downloads) when the script can run.
'use strict';
const form = document.querySelector('form.sparql');
if (form && window.Yasgui) {
  const endpoint = form.getAttribute('action');
  const query = form.querySelector('textarea[name=query]').value;
  const host = document.createElement('div');
  host.id = 'yasgui';
  form.replaceWith(host);
  // no autocompletion from other sites (prefix.cc, LOV): the page talks to this server only
  window.Yasgui.Yasqe.defaults.autocompleters = ['variables'];
  const yasgui = new window.Yasgui(host, {
    yasqe: { autocompleters: ['variables'] },
    requestConfig: { endpoint, method: 'POST', acceptHeaderSelect: 'application/sparql-results+json', acceptHeaderGraph: 'text/turtle' },
    copyEndpointOnNewTab: true,
    persistenceId: null,
    showSnippetsBar: false,
  });
  yasgui.getTab().setQuery(query);
}
