// The WAI-ARIA tab pattern for a row of `role="tab"` buttons: a click
// selects a tab, the arrows move along the row, Home and End to its ends.

/**
 * Makes tabs act as one tab list: select(value) is called with the chosen
 * tab's `data-*` value named by key ("status" reads data-status).
 */
export function tabList(tabs, key, select) {
  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab.dataset[key]));
    tab.addEventListener('keydown', (ev) => {
      const i = tabs.indexOf(tab);
      const n = tabs.length;
      const to = { ArrowRight: (i + 1) % n, ArrowLeft: (i - 1 + n) % n, Home: 0, End: n - 1 }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      tabs[to].focus();
      select(tabs[to].dataset[key]);
    });
  }
}
