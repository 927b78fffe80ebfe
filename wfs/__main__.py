from wfs.fastpath import main

main()
