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

  // Names for YASGUI's unnamed fields, and its "add a tab" button counted as what it stands
  // beside (a list of tabs may hold only tabs), for this tab and every tab opened later.
  const label = () => {
    for (const input of host.querySelectorAll('input.autocomplete:not([aria-label])')) input.setAttribute('aria-label', 'SPARQL endpoint');
    for (const area of host.querySelectorAll('.yasqe textarea:not([aria-label])')) area.setAttribute('aria-label', 'SPARQL query');
    for (const input of host.querySelectorAll('.tabsList a[role=tab] input:not([aria-label])')) input.setAttribute('aria-label', 'tab name');
    for (const select of host.querySelectorAll('.yasr select.tableSizer:not([aria-label])')) select.setAttribute('aria-label', 'results per page');
    for (const button of host.querySelectorAll('.tabsList button.addTab:not([role])')) {
      button.setAttribute('role', 'tab');
      button.setAttribute('aria-selected', 'false');
    }
  };
  label();
  new MutationObserver(label).observe(host, { childList: true, subtree: true });
}
