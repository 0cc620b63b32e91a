// ToxGraph workbench: the little script the pages use where it adds something (they work without it).
'use strict';

// Sortable tables: a click on a column heading sorts the rows of this page by that column
// (numbers as numbers), a second click reverses the order.
for (const table of document.querySelectorAll('table.sortable')) {
  const headings = table.querySelectorAll('thead th');
  headings.forEach((th, column) => {
    th.tabIndex = 0;
    th.setAttribute('role', 'button');
    th.title = 'Sort by this column';
    const sort = () => {
      const body = table.tBodies[0];
      const ascending = th.getAttribute('aria-sort') !== 'ascending';
      for (const h of headings) h.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      const key = (row) => row.cells[column]?.textContent.trim() ?? '';
      const rows = [...body.rows].sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        const [nx, ny] = [Number(x), Number(y)];
        const order = x !== '' && y !== '' && !Number.isNaN(nx) && !Number.isNaN(ny) ? nx - ny : x.localeCompare(y);
        return ascending ? order : -order;
      });
      for (const r of rows) body.appendChild(r);
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        sort();
      }
    });
  });
}

// Uploads with a progress bar: the form is sent by script so that its progress can be shown,
// then the browser goes where the server's answer leads (the new dataset, or its task).
for (const form of document.querySelectorAll('form.upload')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const progress = form.querySelector('progress') ?? form.appendChild(document.createElement('progress'));
    progress.max = 100;
    progress.value = 0;
    const request = new XMLHttpRequest();
    // the button pressed may send it elsewhere (formaction: store at once, or look at it first)
    // (a button without formaction reports the page's own address as its formAction: the form's is meant)
    request.open(form.method, event.submitter?.hasAttribute('formaction') ? event.submitter.formAction : form.action);
    request.setRequestHeader('Accept', 'text/html');
    request.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) progress.value = (100 * e.loaded) / e.total;
    });
    request.addEventListener('load', () => {
      if (request.status < 400) {
        window.location.href = request.responseURL;
        return;
      }
      // the server's error report, shown under the form
      const report = new DOMParser().parseFromString(request.responseText, 'text/html');
      const message = form.querySelector('.error') ?? form.appendChild(document.createElement('p'));
      message.className = 'error';
      message.textContent = (report.querySelector('main') ?? report.body).textContent.trim();
    });
    request.send(new FormData(form));
  });
}

// A choice that other fields depend on (the dataset whose features are offered): reload the page with it.
for (const select of document.querySelectorAll('select[data-reload]')) {
  select.addEventListener('change', () => {
    const url = new URL(window.location.href);
    url.searchParams.set(select.dataset.reload, select.value);
    window.location.href = url.toString();
  });
}

// Fields that take a structure get a structure editor (a module of its own, loaded only here).
if (document.querySelector('input[data-structure-editor]')) import('/static/structure-editor.js');
