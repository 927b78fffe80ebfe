from wfs.cli import main

main()
