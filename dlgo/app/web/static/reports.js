// The reports page: the list of reports/ and one summary, rendered by the server
// (its tables, and its plots served from the report's folder).
let listed = false;

export async function showReports(path, api) {
  const links = document.getElementById("report-links");
  const article = document.getElementById("report");
  if (!listed) {
    try {
      const reports = await api("/reports");
      links.replaceChildren();
      for (const report of reports) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = `#/reports/${encodeURI(report.path)}`;
        link.textContent = report.title;
        link.title = report.path;
        const folder = Object.assign(document.createElement("span"), { className: "muted",
          textContent: ` (${report.folder})` });
        item.append(link, folder);
        links.append(item);
      }
      if (!reports.length) links.innerHTML = '<li class="muted">No reports in this folder.</li>';
      listed = true;
    } catch (error) {
      links.innerHTML = "";
      links.append(Object.assign(document.createElement("li"), { textContent: error.message }));
    }
  }
  if (!path) return;
  const [file, anchor] = path.split("#");
  try {
    const report = await api(`/reports/${encodeURI(file)}`);
    article.innerHTML = report.html; // rendered by the server from Markdown, raw HTML escaped
    document.title = `dlgo: ${report.title}`;
    if (anchor) document.getElementById(anchor)?.scrollIntoView();
    else window.scrollTo(0, 0);
  } catch (error) {
    article.replaceChildren(Object.assign(document.createElement("p"), { textContent: error.message }));
  }
}
