//! Tag names the extractor knows, and what each one means for it.

/// A known tag, or `Other` for anything else (custom elements...).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tag {
    Root,
    Html,
    Head,
    Body,
    Title,
    Base,
    Link,
    Meta,
    Script,
    Style,
    Noscript,
    Template,
    Svg,
    Math,
    Iframe,
    Object,
    Embed,
    Textarea,
    Select,
    Option,
    Button,
    Input,
    Label,
    Form,
    Fieldset,
    Nav,
    Header,
    Footer,
    Aside,
    Main,
    Article,
    Section,
    Div,
    P,
    H1,
    H2,
    H3,
    H4,
    H5,
    H6,
    Ul,
    Ol,
    Li,
    Dl,
    Dt,
    Dd,
    Table,
    Thead,
    Tbody,
    Tfoot,
    Tr,
    Td,
    Th,
    Caption,
    Pre,
    Code,
    Blockquote,
    Figure,
    Figcaption,
    A,
    Img,
    Br,
    Hr,
    Address,
    Center,
    Details,
    Summary,
    Dialog,
    Hgroup,
    Menu,
    Legend,
    Video,
    Audio,
    Canvas,
    Picture,
    Source,
    Area,
    Col,
    Colgroup,
    Param,
    Track,
    Wbr,
    Noembed,
    Noframes,
    Xmp,
    Plaintext,
    Frameset,
    Frame,
    Span,
    Font,
    Other,
}

/// Number of `Tag` variants (for per-tag counters).
pub const TAG_COUNT: usize = Tag::Other as usize + 1;

impl Tag {
    /// Classifies a tag name (any case).
    pub fn from_name(name: &str) -> Tag {
        let b = name.as_bytes();
        if b.len() > 10 {
            return Tag::Other;
        }
        let mut buf = [0u8; 10];
        for (d, s) in buf.iter_mut().zip(b) {
            *d = s.to_ascii_lowercase();
        }
        let lower = buf.get(..b.len()).unwrap_or_default();
        match lower {
            b"html" => Tag::Html,
            b"head" => Tag::Head,
            b"body" => Tag::Body,
            b"title" => Tag::Title,
            b"base" => Tag::Base,
            b"link" => Tag::Link,
            b"meta" => Tag::Meta,
            b"script" => Tag::Script,
            b"style" => Tag::Style,
            b"noscript" => Tag::Noscript,
            b"template" => Tag::Template,
            b"svg" => Tag::Svg,
            b"math" => Tag::Math,
            b"iframe" => Tag::Iframe,
            b"object" | b"applet" => Tag::Object,
            b"embed" => Tag::Embed,
            b"textarea" => Tag::Textarea,
            b"select" | b"datalist" => Tag::Select,
            b"option" | b"optgroup" => Tag::Option,
            b"button" => Tag::Button,
            b"input" | b"keygen" => Tag::Input,
            b"label" => Tag::Label,
            b"form" => Tag::Form,
            b"fieldset" => Tag::Fieldset,
            b"nav" => Tag::Nav,
            b"header" => Tag::Header,
            b"footer" => Tag::Footer,
            b"aside" => Tag::Aside,
            b"main" => Tag::Main,
            b"article" => Tag::Article,
            b"section" => Tag::Section,
            b"div" => Tag::Div,
            b"p" => Tag::P,
            b"h1" => Tag::H1,
            b"h2" => Tag::H2,
            b"h3" => Tag::H3,
            b"h4" => Tag::H4,
            b"h5" => Tag::H5,
            b"h6" => Tag::H6,
            b"ul" => Tag::Ul,
            b"ol" => Tag::Ol,
            b"li" => Tag::Li,
            b"dl" => Tag::Dl,
            b"dt" => Tag::Dt,
            b"dd" => Tag::Dd,
            b"table" => Tag::Table,
            b"thead" => Tag::Thead,
            b"tbody" => Tag::Tbody,
            b"tfoot" => Tag::Tfoot,
            b"tr" => Tag::Tr,
            b"td" => Tag::Td,
            b"th" => Tag::Th,
            b"caption" => Tag::Caption,
            b"pre" | b"listing" => Tag::Pre,
            b"code" => Tag::Code,
            b"blockquote" => Tag::Blockquote,
            b"figure" => Tag::Figure,
            b"figcaption" => Tag::Figcaption,
            b"a" => Tag::A,
            b"img" | b"image" => Tag::Img,
            b"br" => Tag::Br,
            b"hr" => Tag::Hr,
            b"address" => Tag::Address,
            b"center" => Tag::Center,
            b"details" => Tag::Details,
            b"summary" => Tag::Summary,
            b"dialog" => Tag::Dialog,
            b"hgroup" => Tag::Hgroup,
            b"menu" | b"dir" => Tag::Menu,
            b"legend" => Tag::Legend,
            b"video" => Tag::Video,
            b"audio" => Tag::Audio,
            b"canvas" => Tag::Canvas,
            b"picture" => Tag::Picture,
            b"source" => Tag::Source,
            b"area" => Tag::Area,
            b"col" => Tag::Col,
            b"colgroup" => Tag::Colgroup,
            b"param" => Tag::Param,
            b"track" => Tag::Track,
            b"wbr" => Tag::Wbr,
            b"noembed" => Tag::Noembed,
            b"noframes" => Tag::Noframes,
            b"xmp" => Tag::Xmp,
            b"plaintext" => Tag::Plaintext,
            b"frameset" => Tag::Frameset,
            b"frame" => Tag::Frame,
            b"span" => Tag::Span,
            b"font" => Tag::Font,
            _ => Tag::Other,
        }
    }

    /// Lowercase name (for `Block::tag`).
    pub fn name(self) -> &'static str {
        use Tag::*;
        match self {
            Root => "#root",
            Html => "html",
            Head => "head",
            Body => "body",
            Title => "title",
            Base => "base",
            Link => "link",
            Meta => "meta",
            Script => "script",
            Style => "style",
            Noscript => "noscript",
            Template => "template",
            Svg => "svg",
            Math => "math",
            Iframe => "iframe",
            Object => "object",
            Embed => "embed",
            Textarea => "textarea",
            Select => "select",
            Option => "option",
            Button => "button",
            Input => "input",
            Label => "label",
            Form => "form",
            Fieldset => "fieldset",
            Nav => "nav",
            Header => "header",
            Footer => "footer",
            Aside => "aside",
            Main => "main",
            Article => "article",
            Section => "section",
            Div => "div",
            P => "p",
            H1 => "h1",
            H2 => "h2",
            H3 => "h3",
            H4 => "h4",
            H5 => "h5",
            H6 => "h6",
            Ul => "ul",
            Ol => "ol",
            Li => "li",
            Dl => "dl",
            Dt => "dt",
            Dd => "dd",
            Table => "table",
            Thead => "thead",
            Tbody => "tbody",
            Tfoot => "tfoot",
            Tr => "tr",
            Td => "td",
            Th => "th",
            Caption => "caption",
            Pre => "pre",
            Code => "code",
            Blockquote => "blockquote",
            Figure => "figure",
            Figcaption => "figcaption",
            A => "a",
            Img => "img",
            Br => "br",
            Hr => "hr",
            Address => "address",
            Center => "center",
            Details => "details",
            Summary => "summary",
            Dialog => "dialog",
            Hgroup => "hgroup",
            Menu => "menu",
            Legend => "legend",
            Video => "video",
            Audio => "audio",
            Canvas => "canvas",
            Picture => "picture",
            Source => "source",
            Area => "area",
            Col => "col",
            Colgroup => "colgroup",
            Param => "param",
            Track => "track",
            Wbr => "wbr",
            Noembed => "noembed",
            Noframes => "noframes",
            Xmp => "xmp",
            Plaintext => "plaintext",
            Frameset => "frameset",
            Frame => "frame",
            Span => "span",
            Font => "font",
            Other => "other",
        }
    }

    /// Void elements: never pushed on the stack.
    pub fn is_void(self) -> bool {
        use Tag::*;
        matches!(
            self,
            Base | Link
                | Meta
                | Embed
                | Input
                | Img
                | Br
                | Hr
                | Source
                | Area
                | Col
                | Param
                | Track
                | Wbr
                | Frame
        )
    }

    /// Content never shown as text (scripts, styles, embedded documents,
    /// form controls whose text is not prose).
    pub fn is_skip(self) -> bool {
        use Tag::*;
        matches!(
            self,
            Head | Title
                | Script
                | Style
                | Noscript
                | Template
                | Svg
                | Iframe
                | Object
                | Textarea
                | Select
                | Noembed
                | Noframes
                | Xmp
                | Plaintext
                | Frameset
                | Canvas
                | Video
                | Audio
        )
    }

    /// Elements that start and end a text block.
    pub fn is_block(self) -> bool {
        use Tag::*;
        matches!(
            self,
            Root | Html
                | Body
                | Form
                | Fieldset
                | Nav
                | Header
                | Footer
                | Aside
                | Main
                | Article
                | Section
                | Div
                | P
                | H1
                | H2
                | H3
                | H4
                | H5
                | H6
                | Ul
                | Ol
                | Li
                | Dl
                | Dt
                | Dd
                | Table
                | Thead
                | Tbody
                | Tfoot
                | Tr
                | Td
                | Th
                | Caption
                | Pre
                | Blockquote
                | Figure
                | Figcaption
                | Address
                | Center
                | Details
                | Summary
                | Dialog
                | Hgroup
                | Menu
                | Legend
                | Button
                | Label
                | Option
                | Select
                | Textarea
                | Hr
                | Picture
        )
    }

    /// Start tags that close an open `<p>` (WHATWG "in body").
    pub fn closes_p(self) -> bool {
        use Tag::*;
        matches!(
            self,
            Address
                | Article
                | Aside
                | Blockquote
                | Center
                | Details
                | Dialog
                | Menu
                | Div
                | Dl
                | Fieldset
                | Figcaption
                | Figure
                | Footer
                | Header
                | Hgroup
                | Main
                | Nav
                | Ol
                | P
                | Section
                | Summary
                | Ul
                | H1
                | H2
                | H3
                | H4
                | H5
                | H6
                | Pre
                | Form
                | Table
                | Hr
                | Li
                | Dd
                | Dt
                | Plaintext
                | Xmp
        )
    }

    /// Elements that bound a "has an element in scope" search.
    pub fn is_scope_boundary(self) -> bool {
        use Tag::*;
        matches!(
            self,
            Root | Html | Table | Td | Th | Caption | Object | Template | Svg | Math
        )
    }

    /// WHATWG "special" elements: an end tag of an ordinary (inline) element
    /// never closes through them.
    pub fn is_special(self) -> bool {
        self.is_block() || self.is_skip() || self.is_void()
    }

    /// Headings.
    pub fn is_heading(self) -> bool {
        matches!(
            self,
            Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6
        )
    }

    /// Elements allowed in `<head>` (anything else implies `</head>`).
    pub fn is_head_content(self) -> bool {
        use Tag::*;
        matches!(
            self,
            Title | Base | Link | Meta | Script | Style | Noscript | Template
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["div", "P", "H2", "blockquote", "figcaption", "plaintext"] {
            let t = Tag::from_name(name);
            assert_ne!(t, Tag::Other, "{name}");
            assert_eq!(t.name(), name.to_ascii_lowercase());
        }
        assert_eq!(Tag::from_name("my-widget"), Tag::Other);
        assert_eq!(Tag::from_name("averyveryverylongname"), Tag::Other);
    }
}
