/** The console's tab icon, /ui/assets/icon.svg (a page without one makes browsers ask for /favicon.ico). */
export const CONSOLE_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57a4"/>'
  + '<path d="M4 11h8M4 8h5M4 5h8" stroke="#fff" stroke-width="1.6"/></svg>';
