"""A headless chromium driven by selenium, for the tests that open a page (the results page, the
documentation site): Debian's chromium and its driver, found on the PATH."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")

#: Skip a module where chromium or its driver is not installed (``.ci/run`` installs both).
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="chromium and its driver are not installed (apt-get install chromium chromium-driver)",
)


def chromium(tmp_path_factory):
    """A headless chromium with a profile of its own, logging the console; yields the driver."""
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def when_ready(driver, script: str, timeout: float = 30.0):
    """The value of ``script`` once it is truthy, or its value after ``timeout`` seconds: a page's
    own scripts (plotly drawing its figure) may still run after the load event ``get`` waits
    for, and on a loaded machine the first look can come before them."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(
            lambda d: d.execute_script(script)
        )
    except TimeoutException:
        return driver.execute_script(script)
