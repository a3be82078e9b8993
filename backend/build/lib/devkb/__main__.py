from devkb.cli.main import app

app()
