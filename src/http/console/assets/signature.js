// The visit sheet's signature box (CONTRACT §20), on a viewing's page only: the visitor draws with a
// finger, a stylus or the mouse (pointer events) on a canvas, and the drawing is sent with the form
// as a PNG data URL in its hidden `signature` field; after a refusal of another field the page
// hands the signature back (`data-restore`) and it is drawn in the box again. Without this script the box stays hidden and
// the page offers the blank sheet to sign on paper; the canvas is described to screen readers, and
// the same alternative is written beside it.
document.addEventListener('DOMContentLoaded', () => {
  for (const pad of document.querySelectorAll('[data-signature-pad]')) {
    const form = pad.closest('form');
    const canvas = pad.querySelector('canvas');
    const state = pad.querySelector('[data-signature-state]');
    const clear = pad.querySelector('[data-signature-clear]');
    const field = form?.querySelector('input[name="signature"]');
    if (!form || !canvas || !field || !canvas.getContext) continue;
    pad.hidden = false;
    const context = canvas.getContext('2d');
    let drawn = false;
    let last = null;

    // The canvas's pixels follow its size on screen (at most twice over, so the PNG stays small).
    const fit = () => {
      const scale = Math.min(window.devicePixelRatio || 1, 2);
      const { width, height } = canvas.getBoundingClientRect();
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      context.setTransform(scale, 0, 0, scale, 0, 0);
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, width, height);
      context.lineWidth = 2.5;
      context.lineCap = 'round';
      context.lineJoin = 'round';
      context.strokeStyle = '#10233f';
      drawn = false;
      state.textContent = pad.dataset.none;
    };
    fit();
    // The form shown again after a refusal of another field: the signature taken is drawn back.
    if (pad.dataset.restore) {
      const image = new Image();
      image.addEventListener('load', () => {
        const { width, height } = canvas.getBoundingClientRect();
        const scale = Math.min(width / image.naturalWidth, height / image.naturalHeight, 1);
        const w = image.naturalWidth * scale;
        const h = image.naturalHeight * scale;
        context.drawImage(image, (width - w) / 2, (height - h) / 2, w, h);
        drawn = true;
        state.textContent = pad.dataset.drawn;
      });
      image.src = pad.dataset.restore;
    }

    const point = (event) => {
      const box = canvas.getBoundingClientRect();
      return { x: event.clientX - box.left, y: event.clientY - box.top };
    };
    canvas.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      canvas.setPointerCapture(event.pointerId);
      last = point(event);
      context.beginPath();
      context.arc(last.x, last.y, context.lineWidth / 2, 0, Math.PI * 2);
      context.fillStyle = context.strokeStyle;
      context.fill();
    });
    canvas.addEventListener('pointermove', (event) => {
      if (!last) return;
      event.preventDefault();
      const next = point(event);
      context.beginPath();
      context.moveTo(last.x, last.y);
      context.lineTo(next.x, next.y);
      context.stroke();
      last = next;
      if (!drawn) {
        drawn = true;
        state.textContent = pad.dataset.drawn;
      }
    });
    const end = () => {
      last = null;
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    clear?.addEventListener('click', () => {
      fit();
      field.value = '';
    });
    // A new size (a phone turned, a scroll bar come or gone) fits the box again and keeps what was
    // drawn: at its size, or smaller if the box shrank, never stretched.
    let size = canvas.getBoundingClientRect();
    window.addEventListener('resize', () => {
      const now = canvas.getBoundingClientRect();
      if (Math.abs(now.width - size.width) <= 1) return;
      const before = size;
      size = now;
      let kept = null;
      if (drawn) {
        kept = document.createElement('canvas');
        kept.width = canvas.width;
        kept.height = canvas.height;
        kept.getContext('2d').drawImage(canvas, 0, 0);
      }
      fit();
      if (!kept) return;
      const scale = Math.min(now.width / before.width, now.height / before.height, 1);
      context.drawImage(kept, 0, 0, before.width * scale, before.height * scale);
      drawn = true;
      state.textContent = pad.dataset.drawn;
    });
    form.addEventListener('submit', () => {
      field.value = drawn ? canvas.toDataURL('image/png') : '';
    });
  }
});
