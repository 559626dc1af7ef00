"""What CI systems read: JUnit XML files and the GitHub Actions step summary."""
