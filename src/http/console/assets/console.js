// The console's only script, and an optional one. Without it every page still works: the new
// key is shown, selectable, in its field; an import's page has a link to refresh its progress.
// With it: a copy button for the new key, the import's progress follows by itself, and the
// listing form shows the prices of the operations ticked and the subtypes of the type chosen;
// times are shown in the reader's time zone.
document.addEventListener('DOMContentLoaded', () => {
  // Times are written in Madrid's zone; shown in the reader's own.
  const when = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
  for (const time of document.querySelectorAll('time[data-local]')) {
    const instant = new Date(time.getAttribute('datetime'));
    if (!Number.isNaN(instant.getTime())) time.textContent = when.format(instant);
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
});
