// Vite's `?raw` imports: a file's text, for case files read by tests that run in workerd (no node:fs there).
declare module "*?raw" {
  const text: string;
  export default text;
}
