# Renders Markdown from stdin to HTML on stdout the way Review Board does:
# Python-Markdown with fenced code, sane lists, nl2br and tables, raw HTML
# escaped (Review Board shows HTML tags as text).
import sys

import markdown


class EscapeHtml(markdown.extensions.Extension):
    def extendMarkdown(self, md):
        md.preprocessors.deregister('html_block')
        md.inlinePatterns.deregister('html')


src = sys.stdin.read()
sys.stdout.write(markdown.markdown(
    src, extensions=['fenced_code', 'sane_lists', 'nl2br', 'tables', EscapeHtml()]))
