"""report.html: a self-contained page with every case, run and turn (``page.render``)."""
