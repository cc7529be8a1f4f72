"""The Content-Type a page is sent to ``/v1/check/raw`` with."""

from __future__ import annotations

import unittest

from neardup_scrapy.middleware import _raw_content_type


class RawContentTypeTest(unittest.TestCase):
    def test_an_html_type_is_sent_as_served(self) -> None:
        for header in ("text/html", "text/html; charset=ISO-8859-15", "Application/XHTML+XML;charset=utf-8"):
            self.assertEqual(_raw_content_type(header), header)

    def test_a_page_scrapy_took_for_html_is_sent_as_html_with_its_charset(self) -> None:
        # Scrapy sniffs HTML in bodies served without a type or a generic one.
        self.assertEqual(_raw_content_type(""), "text/html")
        self.assertEqual(_raw_content_type("application/octet-stream"), "text/html")
        self.assertEqual(_raw_content_type("text/plain; charset=koi8-r"), "text/html; charset=koi8-r")
        self.assertEqual(
            _raw_content_type('application/x-foo; q=1; Charset="windows-1251"'), "text/html; charset=windows-1251"
        )

    def test_a_header_the_server_cannot_read_is_replaced(self) -> None:
        # /v1/check/raw answers 415 to a Content-Type that is not visible ASCII.
        self.assertEqual(_raw_content_type("text/html; charset=\u00e9"), "text/html")
        self.assertEqual(_raw_content_type("text/plain; charset=utf-8\x7f"), "text/html")
        self.assertEqual(_raw_content_type("text/html;\tcharset=utf-8"), "text/html;\tcharset=utf-8")
