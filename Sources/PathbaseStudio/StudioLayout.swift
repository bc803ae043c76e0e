import Foundation

/// The frame of every page: the navigation, the time control (a date field and a slider
/// over the file's time span: the page as the database was then) and the content.
struct StudioLayout {

    /// The page's path, such as `/models/2`, without the query.
    let path: String

    /// The page's other parameters, kept when the time control moves.
    let parameters: [(String, String?)]

    /// The moment shown, `nil` for now.
    let moment: StudioMoment?

    /// The file's first and last record times (microseconds), for the slider.
    let span: (first: Int64, last: Int64)?

    /// This page's URL at another moment (`nil`: now), with the same other parameters.
    func link(to path: String, _ parameters: [(String, String?)] = []) -> String {
        path + HTML.query(parameters + [("at", moment.map { String($0.microseconds) })])
    }

    func page(title: String, _ content: HTMLText) -> HTMLText {
        let now = "\(path)\(HTML.query(parameters))"
        let hidden = HTMLText(
            joining: parameters.compactMap { name, value in
                value.map { value -> HTMLText in "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">" }
            })
        let slider: HTMLText =
            span.map { span in
                let value = moment.map { min(max($0.microseconds, span.first), span.last) } ?? span.last
                return "<input type=\"range\" id=\"time-slider\" min=\"\(span.first)\" max=\"\(span.last)\" step=\"1\" value=\"\(value)\" aria-label=\"time\">"
            } ?? ""
        let shown: HTMLText =
            moment.map { "<strong id=\"time-shown\">as it was at \($0.text)</strong> · <a href=\"\(now)\" id=\"time-now\">back to now</a>" }
            ?? "<strong id=\"time-shown\">now</strong>"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Pathbase Studio</title><link rel="stylesheet" href="/studio.css"></head>
            <body>
            <header><a href="\(link(to: "/"))" class="brand">Pathbase Studio</a>
            <nav><a href="\(link(to: "/"))">Overview</a> <a href="\(link(to: "/records"))">Records</a> <a href="/changes">Changes</a></nav></header>
            <form id="time" method="get" action="\(path)">\(hidden)
            <label>Time (UTC) <input type="text" id="time-field" name="at" value="\(moment?.text ?? "")" placeholder="now" size="28"></label>
            \(slider) <button type="submit">Show</button> \(shown)
            </form>
            <main><h1>\(title)</h1>
            \(content)
            </main>
            <script src="/studio.js"></script>
            </body></html>
            """
    }

    /// The time control's script: the slider shows its date in the field while it moves,
    /// and loads the page at that moment when let go.
    static let script = """
        (function () {
          var slider = document.getElementById('time-slider');
          var field = document.getElementById('time-field');
          var form = document.getElementById('time');
          if (!slider || !field || !form) { return; }
          function text(micros) {
            var date = new Date(Math.floor(micros / 1000));
            var digits = String(micros % 1000000).padStart(6, '0');
            return date.toISOString().slice(0, 19) + '.' + digits + 'Z';
          }
          slider.addEventListener('input', function () { field.value = text(Number(slider.value)); });
          slider.addEventListener('change', function () { field.value = slider.value; form.submit(); });
        })();
        """

    static let style = """
        body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
        header { display: flex; gap: 2em; align-items: baseline; padding: .6em 1.2em; background: #23395d; }
        header a { color: #fff; text-decoration: none; margin-right: 1em; } .brand { font-weight: 600; }
        #time { padding: .5em 1.2em; background: #e8edf5; display: flex; gap: .8em; align-items: center; flex-wrap: wrap; }
        #time-slider { flex: 1; min-width: 12em; }
        main { padding: 0 1.2em 2em; }
        table { border-collapse: collapse; background: #fff; margin: .5em 0 1.2em; }
        th, td { border: 1px solid #d6dbe3; padding: .25em .6em; text-align: left; vertical-align: top; }
        th { background: #f0f3f8; } td.value { font-family: ui-monospace, monospace; white-space: pre-wrap; }
        .deleted { color: #999; } .error { color: #b00020; } .muted { color: #666; }
        form.inline { display: inline-flex; gap: .5em; align-items: center; margin: .3em 0; }
        .asset { margin: .4em 0; display: flex; flex-direction: column; gap: .3em; align-items: flex-start; }
        .asset img, .asset video { max-width: 32em; max-height: 20em; }
        """
}
