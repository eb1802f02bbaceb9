// The console's only script, and an optional one. Without it every page still works: the new
// key is shown, selectable, in its field; an import's page has a link to refresh its progress.
// With it: a copy button for the new key, and the import's progress follows by itself.
document.addEventListener('DOMContentLoaded', () => {
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
});
