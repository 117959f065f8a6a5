//! The model search's suggestions as the options of its list box, every text escaped: the
//! variant's name, its repo id and family, the one the arrow keys are on marked. Pure: tested on
//! the host; the page writes them in one DOM write.

use fitcard_estimator::badge::xml_escape;
use fitcard_estimator::catalog::catalog;

/// The options for the repo ids `hits` (names are looked up in the catalog), `active` the one
/// the arrow keys are on.
pub fn options_html(hits: &[String], active: Option<usize>) -> String {
    let mut html = String::new();
    for (k, model) in hits.iter().enumerate() {
        let (name, family) = catalog()
            .families
            .iter()
            .find_map(|f| {
                f.variants
                    .iter()
                    .find(|v| &v.id == model)
                    .map(|v| (v.name.as_str(), f.name.as_str()))
            })
            .unwrap_or_default();
        let on = active == Some(k);
        html.push_str(&format!(
            "<li role=\"option\" id=\"search-opt-{k}\"{} aria-selected=\"{on}\" data-model=\"{m}\"><span class=\"search-name\">{}</span> <span class=\"muted\">{m} · {}</span></li>",
            if on { " class=\"active\"" } else { "" },
            xml_escape(name),
            xml_escape(family),
            m = xml_escape(model),
        ));
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_option_names_its_variant_and_the_active_one_is_marked() {
        let f = &catalog().families[0];
        let v = &f.variants[0];
        let h = options_html(&[v.id.clone(), "a<b".into()], Some(1));
        assert_eq!(
            h,
            format!(
                "<li role=\"option\" id=\"search-opt-0\" aria-selected=\"false\" data-model=\"{}\"><span class=\"search-name\">{}</span> <span class=\"muted\">{} · {}</span></li>\
<li role=\"option\" id=\"search-opt-1\" class=\"active\" aria-selected=\"true\" data-model=\"a&lt;b\"><span class=\"search-name\"></span> <span class=\"muted\">a&lt;b · </span></li>",
                xml_escape(&v.id),
                xml_escape(&v.name),
                xml_escape(&v.id),
                xml_escape(&f.name)
            )
        );
        assert_eq!(options_html(&[], None), "");
    }
}
