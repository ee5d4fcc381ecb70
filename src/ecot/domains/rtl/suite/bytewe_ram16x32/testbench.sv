module tb;
    reg         clk = 1'b0;
    reg         en, we;
    reg  [3:0]  be, addr;
    reg  [31:0] din;
    wire [31:0] dout;
    reg  [31:0] m_mem [0:15];
    reg  [31:0] m_dout;
    integer errors, samples, cyc, seed, k;

    bytewe_ram16x32 dut (.clk(clk), .en(en), .we(we), .be(be), .addr(addr), .din(din), .dout(dout));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 3232;
        en = 1'b1; we = 1'b1; be = 4'hF; addr = 4'd0; din = $random(seed); m_dout = 32'bx;
        for (cyc = 0; cyc < 900; cyc = cyc + 1) begin
            @(posedge clk);
            if (en) begin
                m_dout = m_mem[addr];
                if (we)
                    for (k = 0; k < 4; k = k + 1)
                        if (be[k]) m_mem[addr][8 * k +: 8] = din[8 * k +: 8];
            end
            @(negedge clk);
            if (cyc < 15) begin
                en = 1'b1; we = 1'b1; be = 4'hF; addr = cyc + 1;   // initialise every word
            end else begin
                en = ($random(seed) % 6 != 0);
                we = ($random(seed) % 2 == 0);
                be = $random(seed);
                addr = (cyc % 3 == 0) ? addr : $random(seed);      // re-read what was just written
            end
            din = $random(seed);
            #1;
            if (cyc >= 16) begin
                samples = samples + 1;
                if (dout !== m_dout) begin
                    errors = errors + 1;
                    if (errors <= 5)
                        $display("MISMATCH time=%0t signal=dout expected=%h got=%h", $time, m_dout, dout);
                end
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
