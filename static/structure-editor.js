// A structure editor for the fields that take a structure (`input[data-structure-editor]`):
// OpenChemLib's canvas editor, loaded only when someone opens "Draw the structure". What is drawn
// is written into the field as SMILES (as a SMARTS query where the field asks for one), and a
// structure typed into the field is shown in the editor when it opens. The field stays the form's
// value: the page works the same without this script.

/** OpenChemLib, loaded once, on first use (about 1 MB). */
let library;
const loadLibrary = () => (library ??= import('/static/openchemlib.js'));

/** SMARTS where the field asks for a query (its own setting, or the search kind chosen beside it), SMILES otherwise. */
const wantsSmarts = (input) => input.dataset.structureEditor === 'smarts' || input.form?.querySelector('[data-search-kind]')?.value === 'smarts';

function attach(input) {
  const details = document.createElement('details');
  details.className = 'draw';
  const summary = document.createElement('summary');
  summary.textContent = 'Draw the structure';
  const area = document.createElement('div');
  area.className = 'structure-editor';
  area.setAttribute('role', 'application');
  area.setAttribute('aria-label', `structure editor for the field “${input.getAttribute('aria-label') ?? input.name}”`);
  const status = document.createElement('p');
  status.className = 'editor-status';
  status.setAttribute('aria-live', 'polite');
  details.append(summary, area, status);
  (input.closest('p') ?? input).after(details);

  let editor;
  let writing = false;
  details.addEventListener('toggle', async () => {
    if (!details.open || editor) return;
    status.textContent = 'Loading the editor…';
    let OCL;
    try {
      OCL = await loadLibrary();
    } catch {
      status.textContent = 'The editor could not be loaded; type the structure into the field.';
      return;
    }
    status.textContent = '';
    editor = new OCL.CanvasEditor(area, { initialFragment: wantsSmarts(input) });
    const show = () => {
      if (writing) return;
      const text = input.value.trim();
      if (!text) return;
      try {
        const molecule = new OCL.SmilesParser({ smartsMode: wantsSmarts(input) ? 'smarts' : 'smiles' }).parseMolecule(text);
        editor.setMolecule(molecule);
        status.textContent = '';
      } catch {
        status.textContent = 'The field holds no structure the editor can show.';
      }
    };
    show();
    // what is typed is drawn as it is typed (a moment after the last key), not only when the field is left
    let typing;
    input.addEventListener('input', () => {
      if (writing) return; // the editor's own SMILES, written into the field
      clearTimeout(typing);
      typing = setTimeout(show, 300);
    });
    input.addEventListener('change', show);
    editor.setOnChangeListener((event) => {
      if (event.type !== 'molecule' || !event.isUserEvent) return;
      const molecule = editor.getMolecule();
      writing = true;
      input.value = molecule.getAllAtoms() === 0 ? '' : wantsSmarts(input) ? molecule.toSmarts() : molecule.toIsomericSmiles();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      writing = false;
    });
  });
}

for (const input of document.querySelectorAll('input[data-structure-editor]')) attach(input);
