// The console's only script, and an optional one. Without it every page still works: the new
// key is shown, selectable, in its field; an import's page has a link to refresh its progress.
// With it: a copy button for the new key, the import's progress follows by itself, and the
// listing form shows the prices of the operations ticked and the subtypes of the type chosen,
// and its five languages as tabs (WAI-ARIA tabs pattern; stacked panels without the script);
// times are shown in the reader's time zone; the listings' list gets a box that ticks every row;
// each table cell is given its column's name, for a phone's list.
document.addEventListener('DOMContentLoaded', () => {
  // Each cell of a table says its column's name, shown beside it where a phone shows the table as
  // a list (console.css); the listings' cards say their own.
  for (const table of document.querySelectorAll('.table-wrap > table:not(.listings)')) {
    const names = [...table.querySelectorAll(':scope > thead > tr > th')].map((th) => th.textContent.trim().replace(/\s+/g, ' '));
    for (const row of table.querySelectorAll(':scope > tbody > tr'))
      [...row.children].forEach((cell, i) => {
        if (names[i] && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', names[i]);
      });
  }

  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener('click', async () => {
      await navigator.clipboard.writeText(source.value);
      button.textContent = button.dataset.copied;
      setTimeout(() => (button.textContent = label), 2000);
    });
  }

  // An import in progress: fetch its page every second and show its new status, until it ends.
  const poll = async () => {
    const status = document.getElementById('import-status');
    const url = status?.dataset.poll;
    if (!url) return;
    try {
      const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      const next = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('import-status');
      if (next) status.replaceWith(next);
    } finally {
      setTimeout(poll, 1000);
    }
  };
  setTimeout(poll, 1000);

  // The listings' list: one box ticks or unticks every row of the page (each row has its own without the script).
  const all = document.querySelector('[data-select-all]');
  if (all) {
    const boxes = [...document.querySelectorAll('input[type="checkbox"][name="ids"]')];
    const sync = () => {
      const ticked = boxes.filter((box) => box.checked).length;
      all.checked = ticked > 0 && ticked === boxes.length;
      all.indeterminate = ticked > 0 && ticked < boxes.length;
    };
    all.hidden = false;
    all.addEventListener('change', () => {
      for (const box of boxes) box.checked = all.checked;
    });
    for (const box of boxes) box.addEventListener('change', sync);
    sync();
  }

  const listing = document.querySelector('.listing-form');
  if (listing) {
    const sync = () => {
      for (const group of listing.querySelectorAll('[data-for-operation]')) {
        const box = listing.querySelector(`input[data-operation="${group.dataset.forOperation}"]`);
        // A price already written stays in sight: nothing is kept that the agent cannot see.
        group.hidden = !box?.checked && [...group.querySelectorAll('input')].every((input) => input.value === '');
      }
      const type = listing.querySelector('#p-type')?.value ?? '';
      for (const group of listing.querySelectorAll('#p-subtype optgroup')) group.hidden = type !== '' && group.dataset.type !== type;
    };
    listing.addEventListener('change', sync);
    sync();
  }

  // The languages of the listing form: a tab each, selected by click or arrow keys (automatic activation).
  const tablist = document.querySelector('[data-tablist]');
  if (tablist) {
    const tabs = [...tablist.querySelectorAll('[role="tab"]')];
    const panels = tabs.map((tab) => document.getElementById(tab.getAttribute('aria-controls')));
    const words = JSON.parse(tablist.dataset.stateWords || '{}');
    const select = (index, focus) => {
      tabs.forEach((tab, i) => {
        tab.setAttribute('aria-selected', String(i === index));
        tab.tabIndex = i === index ? 0 : -1;
        panels[i].hidden = i !== index;
      });
      if (focus) tabs[index].focus();
    };
    panels.forEach((panel, i) => {
      panel.setAttribute('role', 'tabpanel');
      panel.setAttribute('aria-labelledby', tabs[i].id);
      panel.tabIndex = 0;
    });
    tablist.hidden = false;
    tabs.forEach((tab, i) => {
      tab.addEventListener('click', () => select(i, false));
      tab.addEventListener('keydown', (event) => {
        const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
        if (to === undefined) return;
        event.preventDefault();
        select((to + tabs.length) % tabs.length, true);
      });
    });
    // A language with a fault opens first; a link of the faults' summary opens its field's tab.
    const faulty = panels.findIndex((panel) => panel.hasAttribute('data-faulty'));
    select(Math.max(0, faulty), false);
    for (const link of document.querySelectorAll('#form-problem a[href^="#p-"]')) {
      const i = panels.findIndex((panel) => panel.querySelector(link.getAttribute('href')));
      if (i >= 0) link.addEventListener('click', () => select(i, false));
    }
    // The marker of what is missing follows what is typed.
    panels.forEach((panel, i) => {
      panel.addEventListener('input', () => {
        const [title, description] = [...panel.querySelectorAll('input, textarea')].map((field) => field.value.trim() !== '');
        const state =
          title && description
            ? 'written'
            : title
              ? 'no_description'
              : description
                ? 'no_title'
                : panel.dataset.language === 'es'
                  ? 'unwritten'
                  : 'untranslated';
        for (const marker of [tabs[i], panel].flatMap((el) => [...el.querySelectorAll('[data-language-state]')])) {
          marker.textContent = words[state] ?? marker.textContent;
          marker.classList.toggle('language-state-written', state === 'written');
          marker.classList.toggle('language-state-missing', state !== 'written');
        }
      });
    });
  }
});
