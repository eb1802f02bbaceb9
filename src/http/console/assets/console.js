// The console's only script, and an optional one: it shows the copy button of a new key and
// copies the key to the clipboard. Without it the key is still shown, selectable, in its field.
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
});
