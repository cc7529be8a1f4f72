// Google's `IsUserAgentAllowed` cases from google/robotstxt `robots_test.cc`
// (RFC 9309 / REP I-D cases `ID_*`, and the Google-only ones that concern
// what a crawler fetches: `GoogleOnly_*`), translated as facts: robots.txt
// body, product token, URL, expected answer. Included by
// `tests/robots_google.rs` and `benches/robots.rs`.

/// One case: (test name, robots.txt, product token, URL, allowed).
pub type Case = (&'static str, String, &'static str, String, bool);

fn s(x: &str) -> String {
    x.to_owned()
}

/// Every case, in the order of the original file.
pub fn google_cases() -> Vec<Case> {
    let mut c: Vec<Case> = Vec::new();
    let mut add = |name: &'static str, robots: &str, agent: &'static str, url: &str, ok: bool| {
        c.push((name, s(robots), agent, s(url), ok));
    };

    // GoogleOnly_SystemTest
    let r = "user-agent: FooBot\ndisallow: /\n";
    add("GoogleOnly_SystemTest", "", "FooBot", "", true);
    add("GoogleOnly_SystemTest", r, "", "", true);
    add("GoogleOnly_SystemTest", r, "FooBot", "", false);
    add("GoogleOnly_SystemTest", "", "", "", true);

    // ID_LineSyntax_Line
    let correct = "user-agent: FooBot\ndisallow: /\n";
    let incorrect = "foo: FooBot\nbar: /\n";
    let accepted = "user-agent FooBot\ndisallow /\n";
    let url = "http://foo.bar/x/y";
    add("ID_LineSyntax_Line", correct, "FooBot", url, false);
    add("ID_LineSyntax_Line", incorrect, "FooBot", url, true);
    add("ID_LineSyntax_Line", accepted, "FooBot", url, false);

    // ID_LineSyntax_Groups
    let r = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\n\
             user-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\n\
             user-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n";
    let (w, x, y, z, foo_bar) = (
        "http://foo.bar/w/a",
        "http://foo.bar/x/b",
        "http://foo.bar/y/c",
        "http://foo.bar/z/d",
        "http://foo.bar/foo/bar/",
    );
    for (agent, url, ok) in [
        ("FooBot", x, true),
        ("FooBot", z, true),
        ("FooBot", y, false),
        ("BarBot", y, true),
        ("BarBot", w, true),
        ("BarBot", z, false),
        ("BazBot", z, true),
        ("FooBot", foo_bar, false),
        ("BarBot", foo_bar, false),
        ("BazBot", foo_bar, false),
    ] {
        add("ID_LineSyntax_Groups", r, agent, url, ok);
    }

    // ID_REPLineNamesCaseInsensitive
    for r in [
        "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
        "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
        "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
    ] {
        add("ID_REPLineNamesCaseInsensitive", r, "FooBot", "http://foo.bar/x/y", true);
        add("ID_REPLineNamesCaseInsensitive", r, "FooBot", "http://foo.bar/a/b", false);
    }

    // ID_UserAgentValueCaseInsensitive
    for r in [
        "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
        "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
        "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
    ] {
        for agent in ["Foo", "foo"] {
            add("ID_UserAgentValueCaseInsensitive", r, agent, "http://foo.bar/x/y", true);
            add("ID_UserAgentValueCaseInsensitive", r, agent, "http://foo.bar/a/b", false);
        }
    }

    // GoogleOnly_AcceptUserAgentUpToFirstSpace
    let r = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
    add("GoogleOnly_AcceptUserAgentUpToFirstSpace", r, "Foo", "http://foo.bar/x/y", true);
    add("GoogleOnly_AcceptUserAgentUpToFirstSpace", r, "Foo Bar", "http://foo.bar/x/y", false);

    // ID_GlobalGroups_Secondary
    let global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
    let only_specific = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n\
                         user-agent: BazBot\ndisallow: /\n";
    let url = "http://foo.bar/x/y";
    add("ID_GlobalGroups_Secondary", "", "FooBot", url, true);
    add("ID_GlobalGroups_Secondary", global, "FooBot", url, false);
    add("ID_GlobalGroups_Secondary", global, "BarBot", url, true);
    add("ID_GlobalGroups_Secondary", only_specific, "QuxBot", url, true);

    // ID_AllowDisallow_Value_CaseSensitive
    let url = "http://foo.bar/x/y";
    add("ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", url, false);
    add("ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", url, true);

    // ID_LongestMatch
    let n = "ID_LongestMatch";
    let url = "http://foo.bar/x/page.html";
    add(n, "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", url, false);
    let r = "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n";
    add(n, r, "FooBot", url, true);
    add(n, r, "FooBot", "http://foo.bar/x/", false);
    add(n, "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", url, true);
    add(n, "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", url, true);
    let r = "user-agent: FooBot\ndisallow: /x\nallow: /x/\n";
    add(n, r, "FooBot", "http://foo.bar/x", false);
    add(n, r, "FooBot", "http://foo.bar/x/", true);
    add(n, "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", url, true);
    let r = "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n";
    add(n, r, "FooBot", "http://foo.bar/page.html", false);
    add(n, r, "FooBot", "http://foo.bar/page", true);
    let r = "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n";
    add(n, r, "FooBot", url, true);
    add(n, r, "FooBot", "http://foo.bar/x/y.html", false);
    let r = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n";
    add(n, r, "FooBot", "http://foo.bar/x/page", true);
    add(n, r, "FooBot", "http://foo.bar/y/page", false);

    // ID_Encoding
    let n = "ID_Encoding";
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true);
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true);
    add(n, r, "FooBot", "http://foo.bar/foo/bar/ツ", false);
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true);
    add(n, r, "FooBot", "http://foo.bar/foo/bar/ツ", false);
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar/baz", false);
    add(n, r, "FooBot", "http://foo.bar/foo/bar/%62%61%7A", true);

    // ID_SpecialCharacters
    let n = "ID_SpecialCharacters";
    let r = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar/quz", false);
    add(n, r, "FooBot", "http://foo.bar/foo/quz", true);
    add(n, r, "FooBot", "http://foo.bar/foo//quz", true);
    add(n, r, "FooBot", "http://foo.bar/foo/bax/quz", true);
    let r = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar", false);
    add(n, r, "FooBot", "http://foo.bar/foo/bar/qux", true);
    add(n, r, "FooBot", "http://foo.bar/foo/bar/", true);
    add(n, r, "FooBot", "http://foo.bar/foo/bar/baz", true);
    let r = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
    add(n, r, "FooBot", "http://foo.bar/foo/bar", true);
    add(n, r, "FooBot", "http://foo.bar/foo/quz", false);

    // GoogleOnly_IndexHTMLisDirectory
    let n = "GoogleOnly_IndexHTMLisDirectory";
    let r = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n";
    add(n, r, "foobot", "http://foo.com/allowed-slash/", true);
    add(n, r, "foobot", "http://foo.com/allowed-slash/index.htm", false);
    add(n, r, "foobot", "http://foo.com/allowed-slash/index.html", true);
    add(n, r, "foobot", "http://foo.com/anyother-url", false);

    // GoogleOnly_LineTooLong
    let n = "GoogleOnly_LineTooLong";
    let max_line = 2083 * 8;
    let (allow, disallow) = ("allow: ", "disallow: ");
    {
        let mut longline = s("/x/");
        let max_length = max_line - longline.len() - disallow.len() + 1;
        while longline.len() < max_length {
            longline.push('a');
        }
        let r = format!("user-agent: FooBot\n{disallow}{longline}/qux\n");
        add(n, &r, "FooBot", "http://foo.bar/fux", true);
        add(n, &r, "FooBot", &format!("http://foo.bar{longline}/fux"), false);
    }
    {
        let mut a = s("/x/");
        let mut b = s("/x/");
        let max_length = max_line - a.len() - allow.len() + 1;
        while a.len() < max_length {
            a.push('a');
            b.push('b');
        }
        let r = format!("user-agent: FooBot\ndisallow: /\n{allow}{a}/qux\n{allow}{b}/qux\n");
        add(n, &r, "FooBot", "http://foo.bar/", false);
        add(n, &r, "FooBot", &format!("http://foo.bar{a}/qux"), true);
        add(n, &r, "FooBot", &format!("http://foo.bar{b}/fux"), true);
    }

    // GoogleOnly_DocumentationChecks
    let n = "GoogleOnly_DocumentationChecks";
    for pattern in ["/fish", "/fish*"] {
        let r = format!("user-agent: FooBot\ndisallow: /\nallow: {pattern}\n");
        let odd = if pattern == "/fish" { "/Fish.asp" } else { "/Fish.bar" };
        for (path, ok) in [
            ("/bar", false),
            ("/fish", true),
            ("/fish.html", true),
            ("/fish/salmon.html", true),
            ("/fishheads", true),
            ("/fishheads/yummy.html", true),
            ("/fish.html?id=anything", true),
            (odd, false),
            ("/catfish", false),
            ("/?id=fish", false),
        ] {
            add(n, &r, "FooBot", &format!("http://foo.bar{path}"), ok);
        }
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n";
    for (path, ok) in [
        ("/bar", false),
        ("/fish/", true),
        ("/fish/salmon", true),
        ("/fish/?salmon", true),
        ("/fish/salmon.html", true),
        ("/fish/?id=anything", true),
        ("/fish", false),
        ("/fish.html", false),
        ("/Fish/Salmon.html", false),
    ] {
        add(n, r, "FooBot", &format!("http://foo.bar{path}"), ok);
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n";
    for (path, ok) in [
        ("/bar", false),
        ("/filename.php", true),
        ("/folder/filename.php", true),
        ("/folder/filename.php?parameters", true),
        ("//folder/any.php.file.html", true),
        ("/filename.php/", true),
        ("/index?f=filename.php/", true),
        ("/php/", false),
        ("/index?php", false),
        ("/windows.PHP", false),
    ] {
        add(n, r, "FooBot", &format!("http://foo.bar{path}"), ok);
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n";
    for (path, ok) in [
        ("/bar", false),
        ("/filename.php", true),
        ("/folder/filename.php", true),
        ("/filename.php?parameters", false),
        ("/filename.php/", false),
        ("/filename.php5", false),
        ("/php/", false),
        ("/filename?php", false),
        ("/aaaphpaaa", false),
        ("//windows.PHP", false),
    ] {
        add(n, r, "FooBot", &format!("http://foo.bar{path}"), ok);
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n";
    for (path, ok) in [
        ("/bar", false),
        ("/fish.php", true),
        ("/fishheads/catfish.php?parameters", true),
        ("/Fish.PHP", false),
    ] {
        add(n, r, "FooBot", &format!("http://foo.bar{path}"), ok);
    }
    add(n, "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page", true);
    add(n, "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page", true);
    add(n, "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm", false);
    let r = "user-agent: FooBot\nallow: /$\ndisallow: /\n";
    add(n, r, "FooBot", "http://example.com/", true);
    add(n, r, "FooBot", "http://example.com/page.html", false);
    c
}
